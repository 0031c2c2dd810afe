//! `#[derive(KubeStatus)]` on hand-written status structs: accessors, the apply bodies the
//! status chokepoint sends (exact JSON), the CRD schema, and structs with unusual fields.

use k8s_openapi::jiff::Timestamp;
use kondition::{
    Condition, ConditionStatus, Conditions, KubeStatus, SetOutcome, Severity, StatusResource, Time,
};
use kube::{CustomResource, CustomResourceExt};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// A widget's desired state.
#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[kube(
    group = "example.com",
    version = "v1",
    kind = "Widget",
    namespaced,
    status = "WidgetStatus"
)]
pub struct WidgetSpec {
    /// How big.
    pub size: i32,
}

/// A widget's observed state.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, KubeStatus)]
#[kondition(resource = Widget, conditions(Ready, SubResourcesReady))]
#[serde(rename_all = "camelCase")]
pub struct WidgetStatus {
    /// The standard conditions.
    #[serde(default)]
    pub conditions: Conditions,
    /// The generation the status was computed from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    /// Where the widget answers.
    pub endpoint: Option<String>,
}

fn at(second: i64) -> Time {
    Time(Timestamp::from_second(second).expect("valid timestamp"))
}

fn widget() -> Widget {
    let mut widget = Widget::new("w1", WidgetSpec { size: 3 });
    widget.metadata.namespace = Some("team-a".into());
    widget.metadata.generation = Some(4);
    widget
}

#[test]
fn typed_accessors_follow_the_runtime_rules() {
    let mut status = WidgetStatus::default();
    assert!(status.ready().is_none());
    assert!(!status.is_ready());

    let ready = Condition::new("Anything", ConditionStatus::True, "Succeeded").at(at(100));
    assert_eq!(status.set_ready(ready.clone()), SetOutcome::Transitioned);
    assert!(status.is_ready());
    assert_eq!(status.ready().map(|c| c.type_.as_str()), Some("Ready"));
    // Setting it again at a later time changes nothing.
    assert_eq!(status.set_ready(ready.at(at(200))), SetOutcome::Unchanged);
    assert_eq!(
        status.ready().map(|c| c.last_transition_time.clone()),
        Some(at(100))
    );

    status.set_sub_resources_ready(
        Condition::new("", ConditionStatus::False, "SubResourcesPending")
            .with_severity(Severity::Info),
    );
    assert!(!status.is_sub_resources_ready());
    assert_eq!(
        status.remove_sub_resources_ready().map(|c| c.reason),
        Some("SubResourcesPending".to_owned())
    );
    assert!(status.sub_resources_ready().is_none());

    status.set_observed_generation(7);
    assert_eq!(status.observed_generation, Some(7));
    assert_eq!(KubeStatus::observed_generation(&status), Some(7));
}

#[test]
fn the_condition_type_enum_lists_the_declared_types() {
    assert_eq!(
        WidgetStatus::CONDITION_TYPES,
        &["Ready", "SubResourcesReady"]
    );
    let names: Vec<_> = WidgetStatusConditionType::ALL
        .iter()
        .map(|t| t.as_str())
        .collect();
    assert_eq!(names, WidgetStatus::CONDITION_TYPES);
    assert_eq!(
        String::from(WidgetStatusConditionType::SubResourcesReady),
        "SubResourcesReady"
    );
    let condition = Condition::new(
        WidgetStatusConditionType::Ready,
        ConditionStatus::True,
        "Ok",
    );
    assert_eq!(condition.type_, "Ready");
}

#[test]
fn the_field_owner_defaults_to_group_and_kind() {
    assert_eq!(Widget::field_owner(), "example.com/widget-controller");
}

#[test]
fn the_full_status_apply_body_is_exact() {
    let mut widget = widget();
    let status = widget.status_or_insert();
    status.set_ready(
        Condition::new("Ready", ConditionStatus::True, "Succeeded")
            .with_observed_generation(4)
            .at(at(1_700_000_000)),
    );
    status.set_observed_generation(4);
    status.endpoint = Some("10.0.0.7:443".into());
    assert_eq!(
        serde_json::to_value(widget.status_apply()).expect("serializes"),
        json!({
            "apiVersion": "example.com/v1",
            "kind": "Widget",
            "metadata": {"name": "w1", "namespace": "team-a"},
            "status": {
                "conditions": [{
                    "type": "Ready",
                    "status": "True",
                    "lastTransitionTime": "2023-11-14T22:13:20Z",
                    "reason": "Succeeded",
                    "message": "",
                    "observedGeneration": 4
                }],
                "observedGeneration": 4,
                "endpoint": "10.0.0.7:443"
            }
        })
    );
}

#[test]
fn unset_fields_are_left_out_of_the_apply_body() {
    let mut widget = widget();
    let identity = json!({
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": "w1", "namespace": "team-a"},
    });
    let with_status = |status: Value| {
        let mut body = identity.clone();
        body["status"] = status;
        body
    };
    // No status at all: an empty status, owning nothing.
    assert_eq!(
        serde_json::to_value(widget.status_apply()).expect("serializes"),
        with_status(json!({}))
    );
    // An empty status owns the (empty) conditions list, so stale conditions go.
    widget.status_or_insert();
    assert_eq!(
        serde_json::to_value(widget.status_apply()).expect("serializes"),
        with_status(json!({"conditions": []}))
    );
}

#[test]
fn the_conditions_only_apply_body_is_exact() {
    let mut widget = widget();
    widget.status_or_insert().endpoint = Some("kept out".into());
    widget.status_or_insert().set_observed_generation(3);
    let failed = Condition::new("Ready", ConditionStatus::False, "InvalidEndpoint")
        .with_severity(Severity::Error)
        .with_message("status.endpoint: must be a host:port")
        .with_observed_generation(4)
        .at(at(1_700_000_000));
    let body = widget.conditions_apply(Conditions::from_iter([failed]));
    assert_eq!(
        serde_json::to_value(body).expect("serializes"),
        json!({
            "apiVersion": "example.com/v1",
            "kind": "Widget",
            "metadata": {"name": "w1", "namespace": "team-a"},
            "status": {
                "conditions": [{
                    "type": "Ready",
                    "status": "False",
                    "severity": "Error",
                    "lastTransitionTime": "2023-11-14T22:13:20Z",
                    "reason": "InvalidEndpoint",
                    "message": "status.endpoint: must be a host:port",
                    "observedGeneration": 4
                }]
            }
        })
    );
}

#[test]
fn partial_applies_are_built_with_builders() {
    let partial = WidgetStatusApply::default()
        .with_endpoint("10.0.0.8:443")
        .with_condition(
            Condition::new("example.com/Synced", ConditionStatus::True, "Synced").at(at(0)),
        );
    assert_eq!(
        serde_json::to_value(&partial).expect("serializes"),
        json!({
            "conditions": [{
                "type": "example.com/Synced",
                "status": "True",
                "lastTransitionTime": "1970-01-01T00:00:00Z",
                "reason": "Synced",
                "message": ""
            }],
            "endpoint": "10.0.0.8:443"
        })
    );
}

#[test]
fn the_crd_has_conditions_as_a_map_keyed_by_type() {
    let crd = serde_json::to_value(Widget::crd()).expect("serializes");
    let conditions = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["status"]
        ["properties"]["conditions"];
    assert_eq!(conditions["x-kubernetes-list-type"], "map");
    assert_eq!(conditions["x-kubernetes-list-map-keys"], json!(["type"]));
    let required = conditions["items"]["required"]
        .as_array()
        .expect("items have required fields");
    assert!(required.contains(&json!("type")));
}

mod unusual {
    //! A status with raw identifiers, renames, skipped, flattened and custom-serialized
    //! fields, a plain `i64` generation, a profile plus extra types, a custom field owner, on a
    //! cluster-scoped kind.

    use super::*;
    use std::collections::BTreeMap;

    /// A gateway's desired state.
    #[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[kube(
        group = "net.example.com",
        version = "v1beta1",
        kind = "Gateway",
        status = "GatewayStatus"
    )]
    pub struct GatewaySpec {
        /// Listeners.
        pub listeners: u32,
    }

    /// Serializes a count as a string, to show `with` is honoured.
    mod as_text {
        pub fn serialize<S: serde::Serializer>(
            value: &u32,
            serializer: S,
        ) -> Result<S::Ok, S::Error> {
            serializer.serialize_str(&value.to_string())
        }
        pub fn deserialize<'de, D: serde::Deserializer<'de>>(
            deserializer: D,
        ) -> Result<u32, D::Error> {
            let text = <String as serde::Deserialize>::deserialize(deserializer)?;
            text.parse().map_err(serde::de::Error::custom)
        }
    }

    /// Extra fields flattened into the status.
    #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
    pub struct Extra {
        /// Free-form labels.
        pub labels: BTreeMap<String, String>,
    }

    /// A gateway's observed state.
    #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, KubeStatus)]
    #[kondition(
        resource = Gateway,
        profile = "kstatus",
        conditions("net.example.com/Programmed", r#type),
        field_owner = "gateway-operator"
    )]
    #[serde(rename_all = "camelCase")]
    pub struct GatewayStatus {
        /// The conditions, under a field name of our own.
        #[serde(default, rename = "conditions")]
        pub list: Conditions,
        /// A plain generation.
        #[serde(default)]
        pub observed_generation: i64,
        /// A raw identifier.
        pub r#type: Option<String>,
        /// Renamed on the wire.
        #[serde(rename = "addresses")]
        pub ip_addresses: Vec<String>,
        /// Never serialized.
        #[serde(skip)]
        pub cache: Option<String>,
        /// Custom serialization.
        #[serde(with = "as_text")]
        #[schemars(with = "String")]
        pub attached_routes: u32,
        /// Flattened.
        #[serde(flatten)]
        pub extra: Extra,
    }

    #[test]
    fn names_and_types_follow_the_attributes() {
        assert_eq!(
            GatewayStatus::CONDITION_TYPES,
            &[
                "Ready",
                "Reconciling",
                "Stalled",
                "net.example.com/Programmed",
                "type"
            ]
        );
        assert_eq!(Gateway::field_owner(), "gateway-operator");
        let mut status = GatewayStatus::default();
        status.set_net_example_com_programmed(Condition::new(
            "",
            ConditionStatus::True,
            "Programmed",
        ));
        assert!(status.is_net_example_com_programmed());
        status.set_type(Condition::new("", ConditionStatus::False, "NotYet"));
        assert_eq!(status.r#type().map(|c| c.type_.as_str()), Some("type"));
        assert_eq!(
            GatewayStatusConditionType::NetExampleComProgrammed.as_str(),
            "net.example.com/Programmed"
        );
        assert_eq!(GatewayStatusConditionType::Type.as_str(), "type");
        status.set_observed_generation(9);
        assert_eq!(status.observed_generation, 9);
        assert_eq!(KubeStatus::observed_generation(&status), Some(9));
    }

    #[test]
    fn the_apply_body_serializes_as_the_status_does() {
        let mut gateway = Gateway::new("edge", GatewaySpec { listeners: 2 });
        let status = gateway.status_or_insert();
        status.set_ready(Condition::new("", ConditionStatus::True, "Succeeded").at(at(0)));
        status.observed_generation = 2;
        status.r#type = Some("L7".into());
        status.ip_addresses = vec!["192.0.2.1".into()];
        status.cache = Some("never sent".into());
        status.attached_routes = 12;
        status.extra.labels.insert("zone".into(), "a".into());

        let apply = serde_json::to_value(gateway.status_apply()).expect("serializes");
        let stored = serde_json::to_value(gateway.status.as_ref()).expect("serializes");
        assert_eq!(apply["status"], stored);
        assert_eq!(
            apply,
            json!({
                "apiVersion": "net.example.com/v1beta1",
                "kind": "Gateway",
                "metadata": {"name": "edge"},
                "status": {
                    "conditions": [{
                        "type": "Ready", "status": "True", "reason": "Succeeded", "message": "",
                        "lastTransitionTime": "1970-01-01T00:00:00Z"
                    }],
                    "observedGeneration": 2,
                    "type": "L7",
                    "addresses": ["192.0.2.1"],
                    "attachedRoutes": "12",
                    "labels": {"zone": "a"}
                }
            })
        );
        // The status reads back from what the apply sent.
        let back: GatewayStatus =
            serde_json::from_value(apply["status"].clone()).expect("reads back");
        assert_eq!(back.attached_routes, 12);
    }
}

mod custom_serialization {
    //! A custom-serialized field without flattening: the apply configuration's own
    //! `Serialize` impl calls the field's function.

    use super::*;

    fn as_text<S: serde::Serializer>(value: &u32, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&value.to_string())
    }

    /// A counter's observed state.
    #[derive(Clone, Debug, Default, PartialEq, Serialize, KubeStatus)]
    #[kondition(profile = "standard")]
    #[serde(rename_all = "camelCase")]
    pub struct CounterStatus {
        /// Conditions.
        pub conditions: Conditions,
        /// Generation.
        pub observed_generation: Option<i64>,
        /// Serialized as text.
        #[serde(serialize_with = "as_text")]
        pub total_count: u32,
    }

    #[test]
    fn the_field_function_is_used() {
        let status = CounterStatus {
            total_count: 42,
            ..CounterStatus::default()
        };
        assert_eq!(
            serde_json::to_value(status.to_apply()).expect("serializes"),
            json!({"conditions": [], "totalCount": "42"})
        );
        assert_eq!(
            serde_json::to_value(&status).expect("serializes"),
            json!({"conditions": [], "observedGeneration": null, "totalCount": "42"})
        );
    }
}

mod profiles {
    //! The derive's profile names declare exactly the runtime profiles' condition types.

    use super::*;

    macro_rules! profile_status {
        ($name:ident, $profile:literal) => {
            /// A status of one profile.
            #[derive(Clone, Debug, Default, PartialEq, Serialize, KubeStatus)]
            #[kondition(profile = $profile)]
            #[serde(rename_all = "camelCase")]
            pub struct $name {
                /// Conditions.
                pub conditions: Conditions,
                /// Generation.
                pub observed_generation: Option<i64>,
            }
        };
    }

    profile_status!(StandardStatus, "standard");
    profile_status!(AsoStatus, "aso");
    profile_status!(OrcStatus, "orc");
    profile_status!(KstatusStatus, "kstatus");

    #[test]
    fn each_profile_matches_the_runtime() {
        use kondition::profile;
        assert_eq!(
            StandardStatus::CONDITION_TYPES,
            profile::standard::CONDITION_TYPES
        );
        assert_eq!(AsoStatus::CONDITION_TYPES, profile::aso::CONDITION_TYPES);
        assert_eq!(OrcStatus::CONDITION_TYPES, profile::orc::CONDITION_TYPES);
        assert_eq!(
            KstatusStatus::CONDITION_TYPES,
            profile::kstatus::CONDITION_TYPES
        );
    }
}

mod optional_conditions {
    //! `conditions` as `Option<Conditions>`, as a status read from an existing CRD holds it:
    //! an object without the list is written back without it, one with `[]` with `[]`.

    use super::*;
    use kondition::controller::StatusReconciler;
    use kondition::{Failure, StatusApply};
    use kondition_tests::cluster::TestEnv;
    use kube::CustomResourceExt;
    use kube::api::{Patch, PatchParams, PostParams};
    use std::sync::Arc;

    /// A gadget's desired state.
    #[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[kube(
        group = "example.com",
        version = "v1",
        kind = "Gadget",
        namespaced,
        status = "GadgetStatus"
    )]
    pub struct GadgetSpec {
        /// How big.
        pub size: i32,
    }

    /// A gadget's observed state, every field optional.
    #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, KubeStatus)]
    #[kondition(resource = Gadget, conditions(Ready, SubResourcesReady))]
    #[serde(rename_all = "camelCase")]
    pub struct GadgetStatus {
        /// The conditions, absent until something sets one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub conditions: Option<Conditions>,
        /// The generation the status was computed from.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub observed_generation: Option<i64>,
        /// Where the gadget answers.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub endpoint: Option<String>,
    }

    fn ready_json() -> Value {
        json!({
            "type": "Ready",
            "status": "True",
            "lastTransitionTime": "2023-11-14T22:13:20Z",
            "reason": "Succeeded",
            "message": "",
            "observedGeneration": 4
        })
    }

    fn ready() -> Condition {
        Condition::new("Ready", ConditionStatus::True, "Succeeded")
            .with_observed_generation(4)
            .at(at(1_700_000_000))
    }

    fn read(status: Value) -> GadgetStatus {
        serde_json::from_value(status).expect("reads")
    }

    fn json_of(value: impl Serialize) -> Value {
        serde_json::to_value(value).expect("serializes")
    }

    #[test]
    fn absent_and_empty_lists_round_trip() {
        for status in [
            json!({}),
            json!({"conditions": []}),
            json!({"conditions": [ready_json()]}),
            json!({"conditions": [ready_json()], "observedGeneration": 4, "endpoint": "e:1"}),
        ] {
            let read = read(status.clone());
            assert_eq!(json_of(&read), status);
        }
        assert_eq!(read(json!({})).conditions, None);
        assert_eq!(
            read(json!({"conditions": []})).conditions,
            Some(Conditions::new())
        );
        assert_eq!(
            read(json!({"conditions": [ready_json()]})).conditions,
            Some(Conditions::from_iter([ready()]))
        );
    }

    #[test]
    fn an_absent_list_reads_as_empty() {
        let mut status = GadgetStatus::default();
        assert!(KubeStatus::conditions(&status).is_empty());
        assert!(status.ready().is_none());
        assert!(!status.is_ready());
        // Removing from an absent list leaves it absent.
        assert_eq!(status.remove_ready(), None);
        assert_eq!(status.conditions, None);
        assert_eq!(json_of(&status), json!({}));
    }

    #[test]
    fn writing_to_an_absent_list_creates_it() {
        let mut status = GadgetStatus::default();
        assert_eq!(
            status.set_ready(ready().with_type("Anything")),
            SetOutcome::Transitioned
        );
        assert!(status.is_ready());
        assert_eq!(status.conditions, Some(Conditions::from_iter([ready()])));
        // Removing the last condition keeps the (now empty) list.
        assert_eq!(status.remove_ready(), Some(ready()));
        assert_eq!(json_of(&status), json!({"conditions": []}));

        let mut status = GadgetStatus::default();
        assert_eq!(
            status.conditions_mut().set(ready()),
            SetOutcome::Transitioned
        );
        assert_eq!(json_of(&status), json!({"conditions": [ready_json()]}));

        // Reaching for the list to write is enough to create it, empty.
        let mut status = GadgetStatus::default();
        status.conditions_mut();
        assert_eq!(json_of(&status), json!({"conditions": []}));
    }

    #[test]
    fn the_full_apply_keeps_absent_and_empty_apart() {
        assert_eq!(json_of(read(json!({})).to_apply()), json!({}));
        assert_eq!(
            json_of(read(json!({"conditions": []})).to_apply()),
            json!({"conditions": []})
        );
        let full =
            json!({"conditions": [ready_json()], "observedGeneration": 4, "endpoint": "e:1"});
        assert_eq!(json_of(read(full.clone()).to_apply()), full);

        // Through the resource: a status without conditions applies none.
        let mut gadget = Gadget::new("g1", GadgetSpec { size: 1 });
        gadget.status_or_insert().set_observed_generation(4);
        assert_eq!(
            json_of(gadget.status_apply()),
            json!({
                "apiVersion": "example.com/v1",
                "kind": "Gadget",
                "metadata": {"name": "g1"},
                "status": {"observedGeneration": 4}
            })
        );
    }

    #[test]
    fn the_conditions_only_apply_and_the_builders_are_exact() {
        let body: StatusApply<GadgetStatusApply> = Gadget::new("g1", GadgetSpec { size: 1 })
            .conditions_apply(Conditions::from_iter([ready()]));
        assert_eq!(
            json_of(body),
            json!({
                "apiVersion": "example.com/v1",
                "kind": "Gadget",
                "metadata": {"name": "g1"},
                "status": {"conditions": [ready_json()]}
            })
        );
        assert_eq!(
            json_of(GadgetStatus::conditions_apply(Conditions::new())),
            json!({"conditions": []})
        );
        assert_eq!(
            json_of(
                GadgetStatusApply::default()
                    .with_condition(ready())
                    .with_endpoint("e:1")
            ),
            json!({"conditions": [ready_json()], "endpoint": "e:1"})
        );
        assert_eq!(
            json_of(GadgetStatusApply::default().with_conditions(Conditions::new())),
            json!({"conditions": []})
        );
    }

    #[test]
    fn the_crd_still_has_conditions_as_a_map_keyed_by_type() {
        let crd = json_of(Gadget::crd());
        let conditions = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["status"]
            ["properties"]["conditions"];
        assert_eq!(conditions["x-kubernetes-list-type"], "map");
        assert_eq!(conditions["x-kubernetes-list-map-keys"], json!(["type"]));
    }

    /// Through the status chokepoint, on the real API server: a stored status without a
    /// conditions list (written by the controller itself, an earlier release) gets one
    /// holding the summary condition, and nothing else of the status changes; reconciled
    /// again as stored, nothing is sent.
    #[tokio::test]
    async fn the_chokepoint_stores_the_list_a_status_lacked() {
        let env = TestEnv::new([Gadget::crd()]).await;
        let gadgets = env.api::<Gadget>();
        gadgets
            .create(
                &PostParams::default(),
                &Gadget::new("g1", GadgetSpec { size: 1 }),
            )
            .await
            .expect("created");
        gadgets
            .patch(
                "g1",
                &PatchParams::default(),
                &Patch::Merge(json!({"spec": {"size": 2}})),
            )
            .await
            .expect("spec changed");
        let owner = <Gadget as kondition::StatusResource>::field_owner();
        gadgets
            .patch_status(
                "g1",
                &PatchParams::apply(&owner).force(),
                &Patch::Apply(json!({"apiVersion": "example.com/v1", "kind": "Gadget",
                                     "metadata": {"name": "g1"},
                                     "status": {"endpoint": "10.0.0.7:443"}})),
            )
            .await
            .expect("an earlier status without conditions");
        let gadget = gadgets.get_status("g1").await.expect("read");
        assert_eq!(
            gadget.status.as_ref().and_then(|s| s.conditions.as_ref()),
            None
        );
        let gadget_version = gadget.metadata.resource_version.clone();
        StatusReconciler::<Gadget>::new(env.client.clone())
            .reconcile(Arc::new(gadget), async |_: &mut Gadget| {
                Ok::<(), Failure>(())
            })
            .await
            .expect("status written");

        // One request: a forced server-side apply of the whole status under the kind's
        // field owner, at the resourceVersion read.
        let requests = env.requests.all();
        assert_eq!(requests.len(), 1, "one apply: {requests:?}");
        let request = &requests[0];
        assert_eq!(request.status, Some(200));
        assert_eq!(request.method, "PATCH");
        assert_eq!(
            request.path,
            format!(
                "/apis/example.com/v1/namespaces/{}/gadgets/g1/status",
                env.namespace
            )
        );
        assert_eq!(request.content_type, "application/apply-patch+yaml");
        let mut query = request.query.clone();
        query.sort();
        assert_eq!(
            query,
            [
                ("fieldManager".to_owned(), owner.to_string()),
                ("force".to_owned(), "true".to_owned())
            ]
        );
        assert_eq!(
            request.body["metadata"],
            json!({"name": "g1", "namespace": env.namespace,
                   "resourceVersion": gadget_version})
        );
        assert_eq!(
            (&request.body["apiVersion"], &request.body["kind"]),
            (&json!("example.com/v1"), &json!("Gadget"))
        );
        let stored =
            serde_json::to_value(gadgets.get_status("g1").await.expect("read back")).expect("JSON");
        // It reads back as the status type, with the list present.
        let back: Gadget = serde_json::from_value(stored.clone()).expect("reads back");
        assert!(back.status.as_ref().is_some_and(GadgetStatus::is_ready));

        let expected = json!({
            "conditions": [{
                "type": "Ready",
                "status": "True",
                "lastTransitionTime": "<now>",
                "reason": "Succeeded",
                "message": "",
                "observedGeneration": 2
            }],
            "observedGeneration": 2,
            "endpoint": "10.0.0.7:443"
        });
        // What was applied and what is stored, each with its one time blanked.
        for mut status in [requests[0].body["status"].clone(), stored["status"].clone()] {
            let time = &mut status["conditions"][0]["lastTransitionTime"];
            assert!(time.is_string(), "{time}");
            *time = json!("<now>");
            assert_eq!(status, expected);
        }

        // Reconciled again as stored: nothing to write, nothing sent, nothing changed.
        env.requests.clear();
        StatusReconciler::<Gadget>::new(env.client.clone())
            .reconcile(Arc::new(back.clone()), async |_: &mut Gadget| {
                Ok::<(), Failure>(())
            })
            .await
            .expect("steady");
        assert!(env.requests.is_empty(), "{:?}", env.requests.all());
        let again = gadgets.get_status("g1").await.expect("read again");
        assert_eq!(
            again.metadata.resource_version,
            back.metadata.resource_version
        );
    }
}
