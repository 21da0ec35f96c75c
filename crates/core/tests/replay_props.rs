//! Property tests of the replay state machine and of profile determinism.

use lab_core::replay::player::Replay;
use lab_core::replay::profile::{Jitter, Profile, StallModel};
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Op {
    Advance(f64),
    Pause,
    Play,
    Speed(f64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0.0f64..80.0).prop_map(Op::Advance),
        1 => Just(Op::Pause),
        1 => Just(Op::Play),
        1 => (0.1f64..10.0).prop_map(Op::Speed),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn never_early_never_out_of_order_never_twice(
        mut due in prop::collection::vec(0.0f64..2000.0, 0..200),
        ops in prop::collection::vec(op(), 1..200),
    ) {
        due.sort_by(f64::total_cmp);
        let mut r = Replay::new(due.clone());
        let mut now = 0.0;
        let mut emitted = Vec::new();
        r.play(now);
        for op in ops {
            match op {
                Op::Advance(dt) => now += dt,
                Op::Pause => r.pause(now),
                Op::Play => r.play(now),
                Op::Speed(s) => r.set_speed(now, s),
            }
            let position = r.position(now);
            for i in r.poll(now) {
                prop_assert!(due[i] <= position + 1e-9, "chunk {} due {} emitted at position {}", i, due[i], position);
                emitted.push(i);
            }
        }
        // Play to the end: everything comes out exactly once, in order.
        r.play(now);
        r.set_speed(now, 1.0);
        now += 1e6;
        emitted.extend(r.poll(now));
        prop_assert_eq!(emitted, (0..due.len()).collect::<Vec<_>>());
    }

    #[test]
    fn a_seeded_profile_gives_the_same_trace_every_time(
        seed in any::<u64>(),
        ttft in 0.0f64..3000.0,
        tpot in 0.0f64..200.0,
        cv in 0.0f64..2.0,
        kind in 0u8..4,
        stall_p in 0.0f64..0.3,
        burst in 1u32..8,
        tokens in 1u32..400,
    ) {
        let mut p = Profile::simple("p", ttft, tpot, tokens);
        p.seed = seed;
        p.burst = burst;
        p.jitter = match kind { 0 => Jitter::Constant, 1 => Jitter::Normal { cv }, 2 => Jitter::LogNormal { cv }, _ => Jitter::Gamma { cv } };
        p.stall = Some(StallModel { probability: stall_p, mean_ms: 700.0, cv: 0.5, at_token: None });
        let a = p.to_trace(3, 50);
        let b = p.clone().to_trace(3, 50);
        prop_assert_eq!(&a, &b);
        for r in &a.requests {
            prop_assert!(r.chunks.windows(2).all(|w| w[0].arrived_ms <= w[1].arrived_ms));
            let n: u32 = r.chunks.iter().map(|c| c.tokens).sum();
            prop_assert_eq!(n, tokens);
        }
    }
}
