//! CustomResourceDefinitions: Current once Established. Names the API server would not accept
//! (a clash with another CRD's) or an establishment that stopped for any reason but
//! installing will not fix themselves: Failed.

use k8s_openapi::jiff::Timestamp;

use super::super::KStatusResult;
use super::super::fields::{Fields, FoundCondition, because};

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
            ("NamesAccepted", "False") => Some(KStatusResult::failed(format!(
                "CustomResourceDefinition names not accepted{}",
                because(condition)
            ))),
            ("Established", "False") if condition.reason != "Installing" => {
                Some(KStatusResult::failed(format!(
                    "CustomResourceDefinition not established{}",
                    because(condition)
                )))
            }
            ("Established", "True") => Some(KStatusResult::current(
                "CustomResourceDefinition is Established",
            )),
            _ => None,
        })
        .unwrap_or_else(|| {
            KStatusResult::in_progress("CustomResourceDefinition is being installed")
        })
}
