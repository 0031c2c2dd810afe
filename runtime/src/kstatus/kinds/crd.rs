//! CustomResourceDefinitions: Current once Established. Names the API server would not accept
//! (a clash with another CRD's) or an establishment that stopped for any reason but
//! installing will not fix themselves: Failed.

use k8s_openapi::jiff::Timestamp;

use super::super::KStatusResult;
use super::super::fields::{Fields, FoundCondition};

pub(super) fn custom_resource_definition(
    _: &Fields<'_>,
    conditions: &[FoundCondition<'_>],
    _: Timestamp,
) -> KStatusResult {
    // The first deciding condition in list order, as the API server lists NamesAccepted
    // before Established.
    conditions
        .iter()
        .find_map(|condition| match (condition.type_, condition.status) {
            // The API server's own message says which names clash or what stopped.
            ("NamesAccepted", "False") => Some(KStatusResult::failed(condition.message)),
            ("Established", "False") if condition.reason != "Installing" => {
                Some(KStatusResult::failed(condition.message))
            }
            ("Established", "True") => Some(KStatusResult::current("CRD is established")),
            _ => None,
        })
        .unwrap_or_else(|| KStatusResult::in_progress("Install in progress"))
}
