//! The limits of one rhai evaluation, set on the engine once: operations,
//! time, nesting, and the sizes of strings, arrays and maps, so that a
//! mistake in a condition cannot hang or exhaust the server. Debug and
//! release builds count alike; only the clock runs at their speeds.

use std::cell::Cell;
use std::time::Duration;
use std::time::Instant;

use rhai::{Dynamic, Engine};

/// Most rhai operations one evaluation may run. rhai counts them again from 0
/// in every closure `map` or `filter` call, so this bounds each closure call
/// and the expression around them; the clock bounds the whole.
pub const MAX_OPERATIONS: u64 = 50_000;

/// Longest one evaluation may run, whatever its operations cost: the budget
/// above counts operations, and the costliest (allocating an array in a
/// closure) take near a microsecond each, so the clock bounds the worst case.
pub const MAX_EVALUATION_TIME: Duration = Duration::from_millis(25);

/// Progress reports between two looks at the clock. A look costs tens of
/// nanoseconds; the costliest single operations (splitting a long text, a
/// large array) take tens of microseconds, so 16 of them overshoot the
/// limit by a millisecond or two at most.
const REPORTS_PER_CLOCK_LOOK: u32 = 16;

thread_local! {
    /// The evaluation running on this thread: when it began and the progress
    /// reports since the clock was last read. rhai's progress callback belongs
    /// to the engine, which every evaluation shares, and is told only a count
    /// of operations that starts again in every closure a `map` or `filter`
    /// calls; an evaluation runs to its end on one thread, so the thread keeps
    /// its clock ([`EvaluationClock`]).
    static EVALUATION: Cell<Option<(Instant, u32)>> = const { Cell::new(None) };
}

/// The clock of one evaluation on this thread, from its start to its drop.
pub struct EvaluationClock;

impl EvaluationClock {
    /// Starts the clock of an evaluation on this thread.
    pub fn start() -> EvaluationClock {
        EVALUATION.with(|evaluation| evaluation.set(Some((Instant::now(), 0))));
        EvaluationClock
    }
}

impl Drop for EvaluationClock {
    fn drop(&mut self) {
        EVALUATION.with(|evaluation| evaluation.set(None));
    }
}

/// rhai's progress callback: stops an evaluation that has run longer than
/// [`MAX_EVALUATION_TIME`].
fn stop_when_overdue(_operations: u64) -> Option<Dynamic> {
    EVALUATION.with(|evaluation| {
        let (started, reports) = evaluation.get()?;
        let reports = reports + 1;
        if reports < REPORTS_PER_CLOCK_LOOK {
            evaluation.set(Some((started, reports)));
            return None;
        }
        evaluation.set(Some((started, 0)));
        (started.elapsed() > MAX_EVALUATION_TIME).then(|| {
            Dynamic::from(format!(
                "stopped after {} ms, the longest one evaluation may run",
                MAX_EVALUATION_TIME.as_millis()
            ))
        })
    })
}

/// Sets every limit on `engine`.
pub fn apply(engine: &mut Engine) {
    engine
        .set_max_operations(MAX_OPERATIONS)
        .set_max_expr_depths(64, 32)
        .set_max_call_levels(16)
        .set_max_string_size(10_000)
        .set_max_array_size(10_000)
        .set_max_map_size(10_000)
        .set_max_variables(96)
        .on_progress(stop_when_overdue);
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use crate::engine::facts::Facts;
    use crate::engine::script::Origin;
    use crate::engine::script::ScriptEngine;

    /// Where the conditions below are written.
    fn origin() -> Origin {
        Origin {
            file: PathBuf::from("limits.yaml"),
            line: 10,
            column: 0,
        }
    }

    #[test]
    fn oversized_values_are_stopped_by_the_size_limits() {
        let engine = ScriptEngine::new();
        for source in ["blob(100000).len() > 0", "\"ab\".pad(50000, \"c\") == ()"] {
            let script = engine.compile(source, origin()).unwrap();
            let error = engine.eval_bool(&script, &Facts::default()).unwrap_err();
            assert!(
                error.message.contains("too large") || error.message.contains("exceeds"),
                "{source}: {error}"
            );
        }
    }

    #[test]
    fn runaway_conditions_are_refused_or_stopped_by_the_budget() {
        let engine = ScriptEngine::new();
        // A condition is an expression: loops and statements cannot be
        // written at all, and the file is refused with its line.
        for source in [
            "{ let n = 0; while true { n += 1; } n > 0 }",
            "{ let s = \"x\"; loop { s += s; } s.len() > 0 }",
        ] {
            let refused = engine.compile(source, origin()).unwrap_err();
            assert_eq!(refused.line, 10, "{source}: {refused}");
        }
        // What can run long (closures over big ranges, growing values) is
        // stopped by the operation budget, the clock or the size limits, with
        // an error the explanation shows (BENCHMARKS.md, "Runaway
        // conditions").
        for source in [
            "[0].pad(100000000, 0).len() > 0",
            "[0,1,2,3,4,5,6,7,8,9].map(|a| [0,1,2,3,4,5,6,7,8,9].map(|b| [0,1,2,3,4,5,6,7,8,9]\
             .map(|c| [0,1,2,3,4,5,6,7,8,9].map(|d| [0,1,2,3,4,5,6,7,8,9].map(|e| a+b+c+d+e)))))\
             .len() > 0",
            "[1].map(|x| \"x\".pad(1000000, \"y\")).len() > 0",
        ] {
            let script = engine.compile(source, origin()).unwrap();
            let error = engine.eval_bool(&script, &Facts::default()).unwrap_err();
            let said = error.message.to_lowercase();
            assert!(
                said.contains("too many operations")
                    || said.contains("the longest one evaluation may run")
                    || said.contains("too large")
                    || said.contains("exceeds"),
                "{source}: {error}"
            );
        }
    }

    #[test]
    fn a_condition_of_few_costly_operations_is_stopped_by_the_clock() {
        let engine = ScriptEngine::new();
        // 5,000 texts split into 9,000 pieces each: some 25,000 operations,
        // within the budget, but 45 million allocations, far beyond the time
        // an evaluation may run on any machine.
        let source =
            "blob(5000).to_array().map(|i| blob(9000, 65).as_string().split(\"\").len()).len() > 0";
        let script = engine.compile(source, origin()).unwrap();
        let error = engine.eval_bool(&script, &Facts::default()).unwrap_err();
        assert!(
            error.message.contains("the longest one evaluation may run"),
            "{error}"
        );
        // The next evaluation on the thread has its own time.
        let quick = engine
            .compile("blob(10).to_array().len() == 10", origin())
            .unwrap();
        assert!(engine.eval_bool(&quick, &Facts::default()).unwrap());
    }
}
