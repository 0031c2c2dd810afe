// Hand-written statuses of other operators' CRDs: one that keeps the generation only on its
// conditions (NodePool's shape, no observed_generation field), one with an atomic list of
// conditions without severity or generation (Kafka's shape), one that keeps no generation and
// whose conditions have no lastTransitionTime and an optional reason and message (KEDA's
// shape). All drive the chokepoint.
use kondition::shape::{ConditionFields, ConditionsMerge, GenerationField, Presence};
use kondition::{Condition, ConditionStatus, Conditions, KubeStatus, StatusResource, StatusShape};
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[kube(group = "example.com", version = "v1", kind = "Pool", status = "PoolStatus")]
pub struct PoolSpec { pub weight: i32 }

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, KubeStatus)]
#[kondition(
    resource = Pool,
    profile = "standard",
    observed_generation = "conditions",
    conditions_without(severity)
)]
pub struct PoolStatus {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conditions: Option<Conditions>,
}

#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[kube(group = "example.com", version = "v1", kind = "Stream", namespaced, status = "StreamStatus")]
pub struct StreamSpec { pub replicas: i32 }

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, KubeStatus)]
#[kondition(
    resource = Stream,
    conditions(Ready),
    conditions_list = "atomic",
    conditions_without(severity, observed_generation)
)]
#[serde(rename_all = "camelCase")]
pub struct StreamStatus {
    #[serde(default)]
    pub conditions: Conditions,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
}

#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[kube(group = "example.com", version = "v1", kind = "Scaler", namespaced, status = "ScalerStatus")]
pub struct ScalerSpec { pub target: String }

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, KubeStatus)]
#[kondition(
    resource = Scaler,
    profile = "standard",
    observed_generation = "none",
    conditions_list = "atomic",
    conditions_without(severity, last_transition_time),
    conditions_optional(reason, message)
)]
pub struct ScalerStatus {
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "kondition::shape::serialize_optional_conditions::<ScalerStatus, _>"
    )]
    pub conditions: Option<Conditions>,
}

fn driven<K: StatusResource>(_: &K) {}

fn main() {
    assert_eq!(
        PoolStatus::SHAPE,
        StatusShape {
            generation: GenerationField::Conditions,
            merge: ConditionsMerge::ByType,
            fields: ConditionFields { severity: false, ..ConditionFields::STANDARD },
        }
    );
    assert_eq!(
        StreamStatus::SHAPE,
        StatusShape {
            generation: GenerationField::Status,
            merge: ConditionsMerge::Atomic,
            fields: ConditionFields {
                severity: false,
                observed_generation: false,
                ..ConditionFields::STANDARD
            },
        }
    );
    assert_eq!(
        ScalerStatus::SHAPE,
        StatusShape {
            generation: GenerationField::None,
            merge: ConditionsMerge::Atomic,
            fields: ConditionFields {
                severity: false,
                observed_generation: false,
                reason: Presence::Optional,
                message: Presence::Optional,
                last_transition_time: Presence::Absent,
            },
        }
    );
    // The generation of a status that keeps it on its conditions is its summary's.
    let mut pool = PoolStatus::default();
    pool.set_observed_generation(3);
    assert_eq!(KubeStatus::observed_generation(&pool), None, "no summary yet");
    pool.set_ready(Condition::new("Ready", ConditionStatus::True, "Done").with_observed_generation(1));
    pool.set_observed_generation(3);
    assert_eq!(KubeStatus::observed_generation(&pool), Some(3));
    assert_eq!(pool.ready().and_then(|c| c.observed_generation), Some(3));
    let mut stream = StreamStatus::default();
    stream.set_observed_generation(2);
    assert_eq!(KubeStatus::observed_generation(&stream), Some(2));
    driven(&Pool::new("p", PoolSpec { weight: 1 }));
    driven(&Stream::new("s", StreamSpec { replicas: 1 }));
    // A status that keeps no generation has none to set or read.
    let mut scaler = ScalerStatus::default();
    scaler.set_ready(Condition::new("Ready", ConditionStatus::True, "Done"));
    scaler.set_observed_generation(4);
    assert_eq!(KubeStatus::observed_generation(&scaler), None);
    // Its conditions are written as its schema holds them: no lastTransitionTime, no empty
    // message; and read back the same.
    let written = serde_json::to_value(&scaler).unwrap();
    assert_eq!(
        written,
        serde_json::json!({"conditions": [{"type": "Ready", "status": "True", "reason": "Done"}]})
    );
    let read: ScalerStatus = serde_json::from_value(written.clone()).unwrap();
    assert_eq!(serde_json::to_value(&read).unwrap(), written);
    driven(&Scaler::new("k", ScalerSpec { target: "web".to_owned() }));
}
