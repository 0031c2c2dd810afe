//! Jobs: Current once started (a running Job is doing what it was asked) or complete; Failed
//! when the Job controller marked it failed; InProgress until it starts. A suspended Job
//! that never started stays InProgress, as kstatus has it.

use k8s_openapi::jiff::Timestamp;

use super::super::KStatusResult;
use super::super::fields::{Fields, FoundCondition};

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

    // The first terminal condition in list order decides.
    let decided = conditions
        .iter()
        .filter(|c| c.status == "True")
        .find_map(|condition| match condition.type_ {
            "Complete" => Some(KStatusResult::current(format!(
                "Job Completed. succeeded: {succeeded}/{completions}"
            ))),
            "Failed" => Some(KStatusResult::failed(format!(
                "Job Failed. failed: {failed}/{completions}"
            ))),
            _ => None,
        });
    if let Some(result) = decided {
        return result;
    }
    if fields.string(&["status", "startTime"], "").is_empty() {
        return KStatusResult::in_progress("Job not started");
    }
    KStatusResult::current(format!(
        "Job in progress. success:{succeeded}, active: {active}, failed: {failed}"
    ))
}
