//! Jobs: Current once started (a running Job is doing what it was asked), when complete, or
//! when suspended on purpose; Failed when the Job controller marked it failed; InProgress
//! until it starts.

use k8s_openapi::jiff::Timestamp;

use super::super::KStatusResult;
use super::super::fields::{Fields, FoundCondition, because};

pub(super) fn job(
    fields: &Fields<'_>,
    conditions: &[FoundCondition<'_>],
    _: Timestamp,
) -> KStatusResult {
    let parallelism = fields.int(&["spec", "parallelism"], 1);
    let completions = fields.int(&["spec", "completions"], parallelism);
    let succeeded = fields.int(&["status", "succeeded"], 0);
    let active = fields.int(&["status", "active"], 0);
    let failed = fields.int(&["status", "failed"], 0);
    let suspend = fields.bool(&["spec", "suspend"], false);

    // The first terminal (or suspended) condition in list order decides.
    let decided = conditions
        .iter()
        .filter(|c| c.status == "True")
        .find_map(|condition| match condition.type_ {
            "Complete" => Some(KStatusResult::current(format!(
                "Job has completed: {succeeded} of {completions} succeeded"
            ))),
            "Failed" => Some(KStatusResult::failed(format!(
                "Job has failed{}; {failed} failed, {succeeded} of {completions} succeeded",
                because(condition)
            ))),
            // Suspended only counts while the spec asks for it: a Job being resumed is not done.
            "Suspended" if suspend => Some(KStatusResult::current("Job is suspended")),
            _ => None,
        });
    if let Some(result) = decided {
        return result;
    }
    if fields.string(&["status", "startTime"], "").is_empty() {
        return KStatusResult::in_progress("Job has not started yet");
    }
    KStatusResult::current(format!(
        "Job is running: {succeeded} succeeded, {active} active, {failed} failed"
    ))
}
