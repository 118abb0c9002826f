//! The client's side of the network, decided once for both engines: how long a request takes
//! to reach the server and its answer to come back, the client's turnaround between an answer
//! and its next request, and whether a closed client's next request finds its connection open.

use crate::metrics::Outcome;
use crate::scenario::{Connector, Link};
use crate::time::Nanos;

/// From the client's send to its request reaching the server: half a round trip, and a whole
/// one more when the request opens a connection (the SYN reaches the server after half a
/// round trip, the request follows the handshake one round trip later).
pub fn to_server(link: &Link, new_connection: bool) -> Nanos {
    let half = Nanos(link.rtt.0 / 2);
    if new_connection {
        half + link.rtt
    } else {
        half
    }
}

/// When the `index`-th of clients starting together at `start` sends its first request: the
/// client opens their connections one after another ([`Link::connect_spacing`]).
pub fn staggered(link: &Link, start: Nanos, index: u32) -> Nanos {
    start.saturating_add(Nanos(
        link.connect_spacing.0.saturating_mul(u64::from(index)),
    ))
}

/// From the server's outcome to the client seeing it: half a round trip for what the server
/// sends, nothing for the client's own timeout (it happens where the client is).
pub fn to_client(link: &Link, outcome: Outcome) -> Nanos {
    match outcome {
        Outcome::Timeout => Nanos::ZERO,
        _ => Nanos(link.rtt.0 / 2),
    }
}

/// The client's turnaround after an answer: exponential with the link's mean, `e` being the
/// request's keyed standard exponential (drawn only when the mean is not zero).
pub fn turnaround(link: &Link, e: impl FnOnce() -> f64) -> Nanos {
    if link.turnaround == Nanos::ZERO {
        Nanos::ZERO
    } else {
        Nanos::from_secs_f64(link.turnaround.as_secs_f64() * e())
    }
}

/// The handler thread's work after writing a response (`Http11Processor.service`'s loop:
/// finishing the request, recycling, before it reads the connection again): exponential
/// with the connector's mean, `e` being the request's keyed standard exponential (drawn only
/// when the mean is not zero).
pub fn post_response(connector: &Connector, e: impl FnOnce() -> f64) -> Nanos {
    let mean = connector.post_response;
    if mean == Nanos::ZERO {
        Nanos::ZERO
    } else {
        Nanos::from_secs_f64(mean.as_secs_f64() * e())
    }
}

/// When a closed client that sees an answer at `seen` has its next request at the server, on
/// its open connection: after its turnaround, its pause and half a round trip.
pub fn next_request_at(link: &Link, seen: Nanos, turnaround: Nanos, pause: Nanos) -> Nanos {
    seen + turnaround + pause + to_server(link, false)
}

/// The keep-alive fast path's race: the handler thread that wrote a response at `written`
/// reads the connection again after its post-response work (`post`); the client's next
/// request, there at `next_request`, is read by that thread at once when it wins, and joins
/// the executor's queue through the poller otherwise. Strictly before: a thread that reads
/// again at once cannot find a request its client has not yet been answered for.
pub fn wins_fast_path(next_request: Nanos, written: Nanos, post: Nanos) -> bool {
    next_request < written + post
}

/// Whether Tomcat keeps a connection open after answering with `outcome`. `Http11Processor`
/// closes it after an error status (`statusDropsConnection`: 400, 408, 411, 413, 414, 500,
/// 501, 503, sent with `Connection: close`), and a failed request is answered 500; a reset
/// or the client's own timeout closes it too.
pub fn response_keeps_connection(outcome: Outcome) -> bool {
    outcome.is_response() && outcome != Outcome::Failed
}

/// Whether Tomcat leaves a connection open after its response: keep-alive is on, the server
/// answered without an error status (see [`response_keeps_connection`]), and the connection has
/// served fewer than `maxKeepAliveRequests` requests (`uses`, this one included).
pub fn stays_open(link: &Link, connector: &Connector, uses: u32, outcome: Outcome) -> bool {
    link.keep_alive
        && response_keeps_connection(outcome)
        && connector
            .max_keep_alive_requests
            .is_none_or(|max| uses < max)
}

/// Whether a closed client's connection is still open for its next request: it stayed open
/// after the response ([`stays_open`]) and stays idle (`idle`: from the response's write to
/// the next request reaching the server) for less than `keepAliveTimeout`.
pub fn keeps_connection(
    link: &Link,
    connector: &Connector,
    uses: u32,
    outcome: Outcome,
    idle: Nanos,
) -> bool {
    stays_open(link, connector, uses, outcome) && idle < connector.keep_alive_timeout
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Nanos {
        Nanos::from_millis(n)
    }

    #[test]
    fn a_new_connection_costs_the_handshake_on_top_of_the_way_there() {
        let link = Link {
            rtt: ms(10),
            ..Link::default()
        };
        assert_eq!(to_server(&link, false), ms(5));
        assert_eq!(to_server(&link, true), ms(15));
        assert_eq!(to_client(&link, Outcome::Success), ms(5));
        assert_eq!(to_client(&link, Outcome::Refused), ms(5));
        assert_eq!(to_client(&link, Outcome::Timeout), Nanos::ZERO);
    }

    #[test]
    fn no_turnaround_draws_nothing() {
        let link = Link {
            turnaround: Nanos::ZERO,
            ..Link::default()
        };
        let t = turnaround(&link, || panic!("a zero mean needs no draw"));
        assert_eq!(t, Nanos::ZERO);
        let link = Link {
            turnaround: ms(2),
            ..Link::default()
        };
        assert_eq!(turnaround(&link, || 1.5), ms(3));
    }

    #[test]
    fn the_fast_path_goes_to_a_request_there_before_the_thread_reads_again() {
        let link = Link {
            rtt: ms(2),
            ..Link::default()
        };
        let next = next_request_at(&link, ms(11), ms(3), ms(4));
        assert_eq!(
            next,
            ms(19),
            "seen + turnaround + pause + half the round trip"
        );
        assert!(wins_fast_path(next, ms(10), ms(10)));
        assert!(
            !wins_fast_path(next, ms(10), ms(9)),
            "a tie goes to the poller"
        );
        assert!(!wins_fast_path(ms(10), ms(10), Nanos::ZERO));
        let connector = Connector {
            post_response: ms(2),
            ..Connector::default()
        };
        assert_eq!(post_response(&connector, || 1.5), ms(3));
        let none = Connector {
            post_response: Nanos::ZERO,
            ..Connector::default()
        };
        let post = post_response(&none, || panic!("a zero mean needs no draw"));
        assert_eq!(post, Nanos::ZERO);
    }

    #[test]
    fn a_connection_closes_after_its_last_keep_alive_request_a_reset_or_a_long_idle() {
        let link = Link::default();
        let connector = Connector {
            max_keep_alive_requests: Some(3),
            keep_alive_timeout: ms(100),
            ..Connector::default()
        };
        let ok = |uses, outcome, idle| keeps_connection(&link, &connector, uses, outcome, idle);
        assert!(ok(2, Outcome::Success, ms(1)));
        assert!(ok(2, Outcome::Partial, ms(1)), "a fallback is a 200");
        assert!(!ok(2, Outcome::Failed, ms(1)), "Tomcat closes after a 500");
        assert!(
            !ok(3, Outcome::Success, ms(1)),
            "maxKeepAliveRequests reached"
        );
        assert!(!ok(1, Outcome::Refused, ms(1)), "reset");
        assert!(!ok(1, Outcome::Timeout, ms(1)), "the client gave up");
        assert!(
            !ok(1, Outcome::Success, ms(100)),
            "idle for the whole timeout"
        );
        let off = Link {
            keep_alive: false,
            ..Link::default()
        };
        assert!(!keeps_connection(
            &off,
            &connector,
            1,
            Outcome::Success,
            ms(1)
        ));
    }
}
