// A kind whose CRD serves no status subresource (`subresources: {}`, as Argo CD's
// Application): the chokepoint writes its status through the main resource, so the rules
// kondition prints patch the kind itself and nothing under `/status`.
use kondition::permissions::{KindAccess, rules};
use kondition::{Conditions, KubeStatus, StatusResource};
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[kube(group = "example.com", version = "v1", kind = "Widget", namespaced, status = "WidgetStatus")]
pub struct WidgetSpec { pub size: i32 }

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, KubeStatus)]
#[kondition(resource = Widget, profile = "standard", status_subresource = false)]
#[serde(rename_all = "camelCase")]
pub struct WidgetStatus {
    #[serde(default)]
    pub conditions: Conditions,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
}

#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[kube(group = "example.com", version = "v1", kind = "Gadget", namespaced, status = "GadgetStatus")]
pub struct GadgetSpec { pub size: i32 }

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, KubeStatus)]
#[kondition(resource = Gadget, profile = "standard", status_subresource = true)]
#[serde(rename_all = "camelCase")]
pub struct GadgetStatus {
    #[serde(default)]
    pub conditions: Conditions,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
}

fn main() {
    assert!(!Widget::STATUS_SUBRESOURCE);
    assert!(Gadget::STATUS_SUBRESOURCE);
    let widget = KindAccess::of::<Widget>();
    let gadget = KindAccess::of::<Gadget>();
    let resources: Vec<(Vec<String>, Vec<String>)> = rules([&widget, &gadget])
        .into_iter()
        .map(|rule| (rule.resources.unwrap_or_default(), rule.verbs))
        .collect();
    let strings = |items: &[&str]| items.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        resources,
        [
            (strings(&["events"]), strings(&["create", "patch"])),
            (strings(&["widgets"]), strings(&["get", "list", "patch", "watch"])),
            (strings(&["gadgets"]), strings(&["get", "list", "watch"])),
            (strings(&["gadgets/status"]), strings(&["patch"])),
        ]
    );
}
