use super::*;
use crate::scenario;

fn preset(name: &str) -> Scenario {
    scenario::load(name, &[]).expect("built-in preset")
}

#[test]
fn every_run_has_the_server_shared_and_unbounded_pools_then_one_per_bulkhead() {
    let s = preset("ironthread");
    let t = Topology::new(&s);
    assert_eq!(t.role(t.server()), Some(PoolRole::Server));
    assert_eq!(t.id_of(PoolRole::Server), Some(t.server()));
    assert_eq!(t.role(SHARED_POOL), Some(PoolRole::Shared));
    assert_eq!(t.role(UNBOUNDED_POOL), Some(PoolRole::Unbounded));
    let bulkheads = s.strategy.bulkheads.len();
    assert!(bulkheads > 0);
    assert_eq!(t.pools().len(), 3 + bulkheads);
    for b in 0..bulkheads {
        let id = t.id_of(PoolRole::Bulkhead(b)).expect("a pool per bulkhead");
        assert_eq!(t.pools()[id].spec.name, s.strategy.bulkheads[b].name);
        assert_eq!(t.rejection(id), s.strategy.bulkheads[b].rejection);
    }
    assert_eq!(t.rejection(t.server()), RejectionPolicy::Abort);
}

#[test]
fn each_strategy_routes_calls_to_its_own_pools() {
    let s = preset("ironthread");
    let t = Topology::new(&s);
    let service = s.endpoint.stages[0][0];
    assert_eq!(t.pool_for(Strategy::Sequential, service), None);
    assert_eq!(t.pool_for(Strategy::Shared, service), Some(SHARED_POOL));
    assert_eq!(
        t.pool_for(Strategy::Unbounded, service),
        Some(UNBOUNDED_POOL)
    );
    let bulkhead = t.pool_for(Strategy::Bulkhead, service).expect("a bulkhead");
    assert!(matches!(t.role(bulkhead), Some(PoolRole::Bulkhead(_))));
    assert_eq!(t.pools_in_use(Strategy::Sequential), vec![t.server()]);
    assert_eq!(
        t.pools_in_use(Strategy::Shared),
        vec![t.server(), SHARED_POOL]
    );
    let in_use = t.pools_in_use(Strategy::Bulkhead);
    assert_eq!(in_use.len(), 1 + s.strategy.bulkheads.len());
    assert!(in_use.contains(&bulkhead));
}

#[test]
fn calls_are_numbered_across_stages_and_map_back_to_their_service() {
    let s = preset("ironthread");
    let t = Topology::new(&s);
    let mut n = 0u16;
    for (stage, services) in s.endpoint.stages.iter().enumerate() {
        for (i, &service) in services.iter().enumerate() {
            assert_eq!(t.call_number(stage, i), n);
            assert_eq!(t.service_of(n), service);
            assert_eq!(s.endpoint.service_of_call(n as usize), Some(service));
            n += 1;
        }
    }
}

#[test]
fn common_pool_below_parallelism_two_is_a_thread_per_task_up_to_jdk_21_only() {
    let one = |jdk: &str| {
        scenario::load(
            "ironthread",
            &[
                "strategy.shared.threads=1".to_string(),
                format!("scenario.jdk={jdk}"),
            ],
        )
        .expect("valid overrides")
    };
    let old = one("21");
    assert!(common_pool_per_task(&old));
    assert_eq!(
        Topology::new(&old).pools()[SHARED_POOL].spec.kind,
        PoolKind::PerTask
    );
    let new = one("25");
    assert!(!common_pool_per_task(&new));
    assert_eq!(
        Topology::new(&new).pools()[SHARED_POOL].spec.kind,
        PoolKind::ForkJoin
    );
}

#[test]
fn sizes_stored_in_the_scenario_rebuild_the_same_pools() {
    let mut s = preset("ironthread");
    let t = Topology::new(&s);
    let id = t.id_of(PoolRole::Bulkhead(0)).expect("a bulkhead");
    let mut spec = t.pools()[id].spec.clone();
    spec.core += 2;
    spec.max += 3;
    spec.queue_capacity = Some(7);
    t.store_sizes(&mut s, id, &spec).expect("a bounded queue");
    assert_eq!(Topology::new(&s).pools()[id].spec, spec);
    spec.queue_capacity = None;
    let err = t
        .store_sizes(&mut s, id, &spec)
        .expect_err("unbounded refused");
    assert_eq!(err, StoreError::UnboundedQueue(spec.name.clone()));
    assert_eq!(
        err.to_string(),
        format!("{}'s queue must stay bounded", spec.name)
    );
    let missing = PoolId::at(t.pools().len());
    assert_eq!(
        t.store_sizes(&mut s, missing, &spec),
        Err(StoreError::NoPool(missing))
    );
}
