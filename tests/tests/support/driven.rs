//! What the adopted-kinds tests (adopted.rs, knative.rs) share: a kind the chokepoint drives,
//! created, read and reconciled once.

use std::sync::Arc;

use kondition::controller::StatusReconciler;
use kondition::{Failure, StatusResource};
use kondition_tests::cluster::TestEnv;
use kube::Api;
use kube::api::PostParams;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// The bounds of a kind the chokepoint drives and the tests read and write.
pub trait Driven:
    StatusResource + Clone + std::fmt::Debug + Serialize + DeserializeOwned + Send + Sync + 'static
{
}

impl<K> Driven for K where
    K: StatusResource
        + Clone
        + std::fmt::Debug
        + Serialize
        + DeserializeOwned
        + Send
        + Sync
        + 'static
{
}

pub async fn create<K: Driven>(api: &Api<K>, object: Value) -> K {
    let object: K = serde_json::from_value(object).expect("an object of the kind");
    api.create(&PostParams::default(), &object)
        .await
        .expect("created")
}

pub async fn read<K: Driven>(api: &Api<K>, name: &str) -> K {
    api.get_status(name).await.expect("read")
}

/// One reconcile whose body succeeds, or fails with `failure`.
pub async fn reconcile<K: Driven>(env: &TestEnv, object: &K, failure: Option<Failure>) {
    StatusReconciler::<K>::new(env.client.clone())
        .reconcile(Arc::new(object.clone()), async move |_: &mut K| {
            failure.map_or(Ok(()), Err)
        })
        .await
        .expect("status written");
}
