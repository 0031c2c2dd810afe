// kube's traits and kondition's imported together: no call is ambiguous (issue 27: kube's
// `HasStatus::status_mut` and kondition's once had the same name).
use kondition::{Condition, ConditionStatus, Conditions, KubeStatus, StatusResource};
use kube::core::object::{HasSpec, HasStatus};
use kube::{CustomResource, Resource, ResourceExt};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[kube(group = "example.com", version = "v1", kind = "Widget", namespaced, status = "WidgetStatus")]
pub struct WidgetSpec { pub size: i32 }

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, KubeStatus)]
#[kondition(resource = Widget, profile = "standard")]
#[serde(rename_all = "camelCase")]
pub struct WidgetStatus {
    #[serde(default)]
    pub conditions: Conditions,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
}

fn generic<K: StatusResource>(object: &mut K) -> bool {
    object.status_or_insert().set_observed_generation(2);
    object.status().is_some_and(|s| s.observed_generation() == Some(2))
}

fn main() {
    let mut widget = Widget::new("w", WidgetSpec { size: 1 });
    assert!(widget.status().is_none());
    *widget.status_mut() = Some(WidgetStatus::default());
    widget
        .status_or_insert()
        .set_ready(Condition::new("Ready", ConditionStatus::True, "Done"));
    assert!(widget.status().is_some_and(WidgetStatus::is_ready));
    assert_eq!(widget.spec().size, 1);
    assert_eq!(widget.name_any(), "w");
    assert_eq!(widget.meta().name.as_deref(), Some("w"));
    assert!(generic(&mut widget));
}
