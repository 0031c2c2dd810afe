// Hand-written statuses of other operators' CRDs: one that keeps the generation only on its
// conditions (NodePool's shape, no observed_generation field), one with an atomic list of
// conditions without severity or generation (Kafka's shape). Both drive the chokepoint.
use kondition::shape::{ConditionFields, ConditionsMerge, GenerationField};
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

fn driven<K: StatusResource>(_: &K) {}

fn main() {
    assert_eq!(
        PoolStatus::SHAPE,
        StatusShape {
            generation: GenerationField::Conditions,
            merge: ConditionsMerge::ByType,
            fields: ConditionFields { severity: false, observed_generation: true },
        }
    );
    assert_eq!(
        StreamStatus::SHAPE,
        StatusShape {
            generation: GenerationField::Status,
            merge: ConditionsMerge::Atomic,
            fields: ConditionFields { severity: false, observed_generation: false },
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
}
