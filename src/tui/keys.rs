//! The key table: one list of bindings per context that both handles keys and writes the `?`
//! help overlay, so the help cannot drift from what the keys do.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use crate::scenario::Strategy;

use super::app::Action;

/// A key as the table names it (modifiers folded in: `+` is `+` whether or not Shift was
/// needed to type it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    Char(char),
    Ctrl(char),
    Tab,
    BackTab,
    Up,
    Down,
    Right,
    Left,
    Home,
    Enter,
    Esc,
    Backspace,
}

impl Key {
    /// The key of a press; releases and repeats are ignored.
    pub fn from_event(event: KeyEvent) -> Option<Key> {
        if event.kind != KeyEventKind::Press {
            return None;
        }
        let key = match event.code {
            KeyCode::Char(c) if event.modifiers.contains(KeyModifiers::CONTROL) => Key::Ctrl(c),
            KeyCode::Char(c) => Key::Char(c),
            KeyCode::Tab => Key::Tab,
            KeyCode::BackTab => Key::BackTab,
            KeyCode::Up => Key::Up,
            KeyCode::Down => Key::Down,
            KeyCode::Right => Key::Right,
            KeyCode::Left => Key::Left,
            KeyCode::Home => Key::Home,
            KeyCode::Enter => Key::Enter,
            KeyCode::Esc => Key::Esc,
            KeyCode::Backspace => Key::Backspace,
            _ => return None,
        };
        Some(key)
    }
}

/// Where the keys go: the live screen, or an overlay that takes them first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Context {
    Live,
    Help,
    FaultMenu,
    /// A tour caption is shown: space and → go on, ← back; every other key works as live.
    Tour,
    /// A tour is on but shows no caption (between two steps, or after the last): ← replays
    /// the step last shown and Home restarts; every other key works as live.
    TourPlaying,
    /// The list of a tour's steps.
    TourSteps,
    /// The sweep chart.
    Sweep,
    /// A one-line prompt (`compare with: `): characters are typed into it.
    Prompt,
    /// A lesson's caption or reveal is shown: space and → go on; every other key works as
    /// live.
    Lesson,
    /// A lesson asks: characters are typed into the prediction.
    LessonAnswer,
    /// A lesson's results.
    LessonResults,
}

/// Keys, how the help writes them, what they do.
#[derive(Debug, Clone, Copy)]
pub struct Binding {
    pub keys: &'static [Key],
    pub label: &'static str,
    /// One word for the footer's key hints ("" keeps it out of the footer).
    pub hint: &'static str,
    pub help: &'static str,
    action: fn(Key) -> Action,
}

impl Binding {
    pub fn action(&self, key: Key) -> Option<Action> {
        self.keys.contains(&key).then(|| (self.action)(key))
    }
}

const fn bind(
    keys: &'static [Key],
    label: &'static str,
    help: &'static str,
    action: fn(Key) -> Action,
) -> Binding {
    Binding {
        keys,
        label,
        hint: "",
        help,
        action,
    }
}

impl Binding {
    /// The same binding with a footer hint.
    const fn hint(self, hint: &'static str) -> Binding {
        Binding { hint, ..self }
    }
}

use Key::Char as C;

/// The live screen (and the compare view).
pub const LIVE: &[Binding] = &[
    bind(
        &[C('1'), C('2'), C('3'), C('4'), C('5')],
        "1-5",
        "strategy (see the tabs)",
        |k| Action::SelectStrategy(strategy_of(k)),
    )
    .hint("strategy"),
    bind(&[Key::Tab], "Tab", "select the next pool", |_| {
        Action::NextPool
    })
    .hint("pool"),
    bind(
        &[Key::BackTab],
        "Shift-Tab",
        "select the previous pool",
        |_| Action::PreviousPool,
    ),
    bind(&[C('+'), C('=')], "+", "grow the selected pool", |_| {
        Action::GrowPool
    })
    .hint("grow"),
    bind(&[C('-'), C('_')], "-", "shrink the selected pool", |_| {
        Action::ShrinkPool
    })
    .hint("shrink"),
    bind(&[C(']')], "]", "longer queue (selected pool)", |_| {
        Action::GrowQueue
    })
    .hint("queue+"),
    bind(&[C('[')], "[", "shorter queue (selected)", |_| {
        Action::ShrinkQueue
    })
    .hint("queue-"),
    bind(&[Key::Up], "Up", "more load (x1.25 or +10%)", |_| {
        Action::MoreLoad
    })
    .hint("load+"),
    bind(&[Key::Down], "Down", "less load (/1.25 or -10%)", |_| {
        Action::LessLoad
    })
    .hint("load-"),
    bind(&[C(' ')], "space", "pause / resume", |_| {
        Action::TogglePause
    })
    .hint("pause"),
    bind(&[C('.')], ".", "pause, step one event", |_| Action::Step).hint("step"),
    bind(&[C('>')], ">", "faster (up to max)", |_| Action::SpeedUp).hint("faster"),
    bind(&[C('<')], "<", "slower (down to 0.1x)", |_| {
        Action::SlowDown
    })
    .hint("slower"),
    bind(&[C('f')], "f", "inject or heal a fault", |_| {
        Action::OpenFaultMenu
    })
    .hint("fault"),
    bind(&[C('c')], "c", "compare every strategy", |_| {
        Action::ToggleCompare
    })
    .hint("compare"),
    bind(&[C('C')], "C", "compare pattern variants", |_| {
        Action::ToggleVariants
    })
    .hint("variants"),
    bind(&[C('a')], "a", "add a variant (in C)", |_| {
        Action::AddVariant
    }),
    bind(&[C('g')], "g", "sweep pool size (or load)", |_| {
        Action::OpenSweep
    })
    .hint("sweep"),
    bind(&[C('v')], "v", "server: platform/virtual", |_| {
        Action::ToggleServerThreads
    }),
    bind(&[C('u')], "u", "unbounded: virtual/platform", |_| {
        Action::ToggleUnboundedThreads
    }),
    bind(&[C('t')], "t", "timeline (lanes per thread)", |_| {
        Action::ToggleTimeline
    })
    .hint("timeline"),
    bind(&[C('j'), C('k')], "j k", "next / previous lane", |k| {
        Action::MoveLane(k == C('j'))
    }),
    bind(&[C('w')], "w", "write a Perfetto trace", |_| {
        Action::WriteTrace
    }),
    bind(&[C('p')], "p", "save the screen (SVG)", |_| {
        Action::SaveScreen
    }),
    bind(&[C('b')], "b", "pin figures as baseline", |_| {
        Action::TogglePin
    }),
    bind(&[C('z')], "z", "zoom the next panel", |_| Action::Zoom),
    bind(&[C('L')], "L", "headline in large type", |_| {
        Action::ToggleHeadline
    }),
    bind(&[C('h')], "h", "hide / show theory", |_| {
        Action::ToggleTheory
    }),
    bind(&[C('r')], "r", "reset (same seed)", |_| Action::Reset).hint("reset"),
    bind(&[C('s')], "s", "new seed", |_| Action::NewSeed).hint("seed"),
    bind(&[C('?')], "?", "this help", |_| Action::ToggleHelp).hint("help"),
    bind(&[C('l')], "l", "tour: steps, jump to one", |_| {
        Action::TourSteps
    }),
    bind(&[C('q')], "q", "quit (in a tour: asks first)", |_| {
        Action::Quit
    })
    .hint("quit"),
    bind(&[Key::Esc], "Esc", "close compare (never quits)", |_| {
        Action::Back
    }),
];

/// The fault menu: choose a service, then set its fault (kind, strength, how long) and apply.
pub const FAULT_MENU: &[Binding] = &[
    bind(
        &[Key::Up, Key::Down, Key::Tab],
        "Up Down",
        "previous / next line",
        |k| {
            if k == Key::Up {
                Action::MenuUp
            } else {
                Action::MenuDown
            }
        },
    ),
    bind(
        &[Key::Left, Key::Right, C('-'), C('+'), C('_'), C('=')],
        "← → - +",
        "less / more of the value",
        |k| Action::MenuAdjust(matches!(k, Key::Right | C('+') | C('='))),
    ),
    bind(&[Key::Enter], "Enter", "choose, or apply the fault", |_| {
        Action::MenuChoose
    }),
    bind(&DIGITS, "1-9", "choose a service / line", |k| {
        Action::MenuPick(digit_of(k))
    }),
    bind(&[Key::Esc, C('f')], "Esc", "back / close the menu", |_| {
        Action::Back
    }),
    bind(&[C('q')], "q", "quit", |_| Action::Quit),
];

/// `1`-`9`: pick a menu line or a tour step by its number.
const DIGITS: [Key; 9] = [
    C('1'),
    C('2'),
    C('3'),
    C('4'),
    C('5'),
    C('6'),
    C('7'),
    C('8'),
    C('9'),
];

/// The help overlay.
pub const HELP: &[Binding] = &[
    bind(&[C('?')], "?", "next page, then close", |_| {
        Action::ToggleHelp
    }),
    bind(&[Key::Esc], "Esc", "close the help", |_| Action::Back),
    bind(&[C('q')], "q", "quit", |_| Action::Quit),
];

/// While a tour caption is shown (`threadlab tour`).
pub const TOUR: &[Binding] = &[
    bind(
        &[C(' '), Key::Right],
        "space →",
        "next step of the tour",
        |_| Action::TourNext,
    ),
    bind(&[Key::Left], "←", "previous step (replayed)", |_| {
        Action::TourBack
    }),
    bind(&[Key::Home], "Home", "restart the tour", |_| {
        Action::TourRestart
    }),
];

/// A tour between its steps, or after its last: it can still be replayed (the help's "Tour"
/// lines say what these keys do).
pub const TOUR_PLAYING: &[Binding] = &[
    bind(&[Key::Left], "←", "previous step (replayed)", |_| {
        Action::TourBack
    }),
    bind(&[Key::Home], "Home", "restart the tour", |_| {
        Action::TourRestart
    }),
];

/// The list of a tour's steps.
pub const TOUR_STEPS: &[Binding] = &[
    bind(&[Key::Up], "Up", "previous step", |_| Action::MenuUp),
    bind(&[Key::Down, Key::Tab], "Down", "next step", |_| {
        Action::MenuDown
    }),
    bind(&[Key::Enter], "Enter", "replay to the step", |_| {
        Action::MenuChoose
    }),
    bind(&DIGITS, "1-9", "replay to step N", |k| {
        Action::TourJump(digit_of(k))
    }),
    bind(&[Key::Esc, C('l')], "Esc l", "close the list", |_| {
        Action::Back
    }),
    bind(&[C('q')], "q", "quit", |_| Action::Quit),
];

/// The sweep chart.
pub const SWEEP: &[Binding] = &[
    bind(
        &[Key::Left, Key::Right],
        "← →",
        "previous / next point",
        |k| Action::SweepMove(k == Key::Right),
    ),
    bind(&[Key::Enter], "Enter", "apply the point's value", |_| {
        Action::SweepApply
    }),
    bind(&[Key::Tab], "Tab", "sweep the next pool / load", |_| {
        Action::SweepNextKnob
    }),
    bind(
        &[Key::Esc, C('g')],
        "Esc g",
        "close (stops computing)",
        |_| Action::Back,
    ),
    bind(&[C('q')], "q", "quit", |_| Action::Quit),
];

/// The one-line prompt (`a` in the variants compare): every other character is typed.
pub const PROMPT: &[Binding] = &[
    bind(&[Key::Enter], "Enter", "add", |_| Action::PromptEnter),
    bind(&[Key::Backspace], "Backspace", "delete", |_| {
        Action::PromptBackspace
    }),
    bind(&[Key::Esc], "Esc", "cancel", |_| Action::Back),
];

/// A lesson's caption or reveal (`threadlab lesson`).
pub const LESSON: &[Binding] = &[bind(
    &[C(' '), Key::Right],
    "space →",
    "next step of the lesson",
    |_| Action::LessonNext,
)];

/// A lesson's question: every other character is typed into the prediction.
pub const LESSON_ANSWER: &[Binding] = &[
    bind(&[Key::Enter], "Enter", "answer (empty: skip)", |_| {
        Action::AnswerEnter
    }),
    bind(&[Key::Backspace], "Backspace", "delete", |_| {
        Action::AnswerBackspace
    }),
];

/// A lesson's results, at its end.
pub const LESSON_RESULTS: &[Binding] = &[
    bind(
        &[Key::Esc, Key::Enter, C(' ')],
        "Esc",
        "close the results",
        |_| Action::Back,
    ),
    bind(&[C('q')], "q", "quit", |_| Action::Quit),
];

/// Keys that work everywhere. Ctrl-C arrives as a key in raw mode.
pub const ALWAYS: &[Binding] = &[bind(&[Key::Ctrl('c')], "Ctrl-C", "quit", |_| Action::Quit)];

pub fn table(context: Context) -> &'static [Binding] {
    match context {
        Context::Live => LIVE,
        Context::Help => HELP,
        Context::FaultMenu => FAULT_MENU,
        Context::Tour => TOUR,
        Context::TourPlaying => TOUR_PLAYING,
        Context::TourSteps => TOUR_STEPS,
        Context::Sweep => SWEEP,
        Context::Prompt => PROMPT,
        Context::Lesson => LESSON,
        Context::LessonAnswer => LESSON_ANSWER,
        Context::LessonResults => LESSON_RESULTS,
    }
}

/// What a key does in a context. During a tour, keys the tour does not take work as live:
/// the speaker can take over at any moment.
pub fn action_for(context: Context, key: Key) -> Option<Action> {
    let fallback = if matches!(
        context,
        Context::Tour | Context::TourPlaying | Context::Lesson
    ) {
        LIVE
    } else {
        &[]
    };
    let bound = ALWAYS
        .iter()
        .chain(table(context))
        .chain(fallback)
        .find_map(|binding| binding.action(key));
    match (context, key) {
        (Context::Prompt, Key::Char(c)) if bound.is_none() => Some(Action::PromptType(c)),
        (Context::LessonAnswer, Key::Char(c)) if bound.is_none() => Some(Action::Answer(c)),
        _ => bound,
    }
}

/// The live keys a config file's `[keys]` may move, by name (see `config::KeyMap`).
const REBINDABLE: &[(&str, Key)] = &[
    ("queue_up", C(']')),
    ("queue_down", C('[')),
    ("pause", C(' ')),
    ("step", C('.')),
    ("faster", C('>')),
    ("slower", C('<')),
    ("fault", C('f')),
    ("compare", C('c')),
    ("variants", C('C')),
    ("add_variant", C('a')),
    ("sweep", C('g')),
    ("server_threads", C('v')),
    ("unbounded_threads", C('u')),
    ("timeline", C('t')),
    ("trace", C('w')),
    ("save_screen", C('p')),
    ("pin", C('b')),
    ("zoom", C('z')),
    ("headline", C('L')),
    ("hide_theory", C('h')),
    ("reset", C('r')),
    ("seed", C('s')),
    ("help", C('?')),
    ("tour_steps", C('l')),
    ("quit", C('q')),
];

/// The names and keys a config file's `[keys]` may move.
pub fn rebindable() -> &'static [(&'static str, Key)] {
    REBINDABLE
}

/// What a live key does, as the help says it (`None`: the key is free).
pub fn live_label_of(key: Key) -> Option<&'static str> {
    ALWAYS
        .iter()
        .chain(LIVE)
        .find(|b| b.keys.contains(&key))
        .map(|b| b.help)
}

/// `1`..`9` as 1..9 (0 for anything else).
fn digit_of(key: Key) -> usize {
    match key {
        Key::Char(c) => c.to_digit(10).map_or(0, |d| d as usize),
        _ => 0,
    }
}

/// `1`..`5` as the strategies in their usual order.
fn strategy_of(key: Key) -> Strategy {
    let i = digit_of(key).clamp(1, Strategy::ALL.len()) - 1;
    Strategy::ALL[i]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_pick_strategies_in_order() {
        for (i, s) in Strategy::ALL.iter().enumerate() {
            let c = char::from_digit(i as u32 + 1, 10).expect("digit");
            assert_eq!(
                action_for(Context::Live, Key::Char(c)),
                Some(Action::SelectStrategy(*s))
            );
        }
    }

    #[test]
    fn ctrl_c_quits_in_every_context() {
        for ctx in [
            Context::Live,
            Context::Help,
            Context::FaultMenu,
            Context::Tour,
        ] {
            assert_eq!(action_for(ctx, Key::Ctrl('c')), Some(Action::Quit));
        }
    }

    #[test]
    fn no_key_is_bound_twice_in_a_context() {
        for ctx in [
            Context::Live,
            Context::Help,
            Context::FaultMenu,
            Context::TourSteps,
            Context::Sweep,
            Context::Prompt,
            Context::Lesson,
            Context::LessonAnswer,
            Context::LessonResults,
        ] {
            let keys: Vec<Key> = ALWAYS
                .iter()
                .chain(table(ctx))
                .flat_map(|b| b.keys.iter().copied())
                .collect();
            for (i, k) in keys.iter().enumerate() {
                assert!(!keys[i + 1..].contains(k), "{k:?} bound twice in {ctx:?}");
            }
        }
    }

    #[test]
    fn a_tour_takes_space_and_right_and_leaves_the_rest_live() {
        assert_eq!(
            action_for(Context::Tour, Key::Char(' ')),
            Some(Action::TourNext)
        );
        assert_eq!(
            action_for(Context::Tour, Key::Right),
            Some(Action::TourNext)
        );
        assert_eq!(
            action_for(Context::Tour, Key::Char('1')),
            Some(Action::SelectStrategy(Strategy::Sequential))
        );
        assert_eq!(
            action_for(Context::Live, Key::Char(' ')),
            Some(Action::TogglePause)
        );
    }

    #[test]
    fn overlays_take_keys_first() {
        assert_eq!(action_for(Context::Help, Key::Char('1')), None);
        assert_eq!(action_for(Context::Help, Key::Esc), Some(Action::Back));
        assert_eq!(
            action_for(Context::FaultMenu, Key::Char('2')),
            Some(Action::MenuPick(2))
        );
    }

    #[test]
    fn a_prompt_types_every_character_and_keeps_ctrl_c() {
        for c in ['q', '1', 'c', '?', ' ', '='] {
            assert_eq!(
                action_for(Context::Prompt, Key::Char(c)),
                Some(Action::PromptType(c))
            );
        }
        assert_eq!(
            action_for(Context::Prompt, Key::Backspace),
            Some(Action::PromptBackspace)
        );
        assert_eq!(
            action_for(Context::Prompt, Key::Enter),
            Some(Action::PromptEnter)
        );
        assert_eq!(action_for(Context::Prompt, Key::Esc), Some(Action::Back));
        assert_eq!(
            action_for(Context::Prompt, Key::Ctrl('c')),
            Some(Action::Quit)
        );
        assert_eq!(action_for(Context::Prompt, Key::Up), None);
    }

    #[test]
    fn a_lesson_s_answer_types_every_character_and_its_reveal_goes_on_with_space() {
        for c in ['q', '1', 'a', '/', ' ', '%'] {
            assert_eq!(
                action_for(Context::LessonAnswer, Key::Char(c)),
                Some(Action::Answer(c))
            );
        }
        assert_eq!(
            action_for(Context::LessonAnswer, Key::Enter),
            Some(Action::AnswerEnter)
        );
        assert_eq!(
            action_for(Context::LessonAnswer, Key::Ctrl('c')),
            Some(Action::Quit)
        );
        assert_eq!(
            action_for(Context::Lesson, Key::Char(' ')),
            Some(Action::LessonNext)
        );
        // The presenter's keys still work on a caption or a reveal.
        assert_eq!(
            action_for(Context::Lesson, Key::Char('z')),
            Some(Action::Zoom)
        );
        assert_eq!(action_for(Context::LessonResults, Key::Char('z')), None);
    }

    #[test]
    fn releases_are_ignored() {
        let mut event = KeyEvent::from(KeyCode::Char('q'));
        assert_eq!(Key::from_event(event), Some(Key::Char('q')));
        event.kind = KeyEventKind::Release;
        assert_eq!(Key::from_event(event), None);
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(Key::from_event(ctrl_c), Some(Key::Ctrl('c')));
    }
}
