//! The acceptance operator of issue 47, shaped like kube-rs's controller-rs example (written
//! here): it publishes [`Document`]s, reports `status.hidden` (a required non-condition
//! field) and `status.endpoint` beside the standard conditions, holds a finalizer through
//! `kondition::controller::with_finalizer`, records Events of its own (a hide requested, a
//! document retracted) beside the chokepoint's, and counts each reconcile's outcome in its
//! metrics through `StatusReconciler::on_outcome`. `tests/tests/document_operator.rs` runs it
//! with 20 Documents on the real API server, and its unit tests on kondition's test double
//! and on the real server alike.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures::StreamExt;
use kondition::controller::{
    Error, FinalizerError, Reconciled, StatusReconciler, error_policy, with_finalizer,
};
use kondition::{Failure, StatusResource};
use kube::runtime::controller::Action;
use kube::runtime::events::{Event, EventType, Recorder, Reporter};
use kube::runtime::{Controller, watcher};
use kube::{Api, Client, Resource, ResourceExt};

use crate::document::Document;

/// The operator's finalizer.
pub const FINALIZER: &str = "documents.example.com/cleanup";

/// What the operator exports (a Prometheus registry's counters, in a real one): reconciles
/// by outcome, and the version of each Document its last reconcile read.
#[derive(Debug, Default)]
pub struct Metrics {
    outcomes: Mutex<BTreeMap<&'static str, u64>>,
    read: Mutex<HashMap<String, String>>,
}

impl Metrics {
    /// Counts one reconcile of `document` that came to `outcome` (the outcome hook).
    pub fn count(&self, document: &Document, outcome: &Reconciled) {
        let label = match outcome {
            Reconciled::Succeeded => "succeeded",
            Reconciled::Unsuccessful { .. } => "failed",
            Reconciled::Rejected => "rejected",
            Reconciled::WriteFailed(_) => "write_failed",
            Reconciled::Gone => "gone",
            Reconciled::Waiting { .. } => "waiting",
            _ => "other",
        };
        *self
            .outcomes
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(label)
            .or_default() += 1;
        self.read
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(
                document.name_any(),
                document.resource_version().unwrap_or_default(),
            );
    }

    /// How many reconciles came to the outcome `label` (`succeeded`, `failed`, `rejected`,
    /// `write_failed`, `gone`, `waiting`).
    pub fn outcomes(&self, label: &str) -> u64 {
        let outcomes = self.outcomes.lock().unwrap_or_else(PoisonError::into_inner);
        outcomes.get(label).copied().unwrap_or(0)
    }

    /// The `resourceVersion` the last reconcile of the Document `name` read.
    pub fn last_read(&self, name: &str) -> Option<String> {
        let read = self.read.lock().unwrap_or_else(PoisonError::into_inner);
        read.get(name).cloned()
    }
}

/// The operator: its chokepoint, its client and Recorder, its metrics.
pub struct Operator {
    reconciler: StatusReconciler<Document>,
    client: Client,
    recorder: Recorder,
    /// The metrics, fed by the outcome hook.
    pub metrics: Arc<Metrics>,
}

impl Operator {
    /// The operator speaking through `client`.
    pub fn new(client: Client) -> Operator {
        let reporter = Reporter {
            controller: "document-operator".into(),
            instance: None,
        };
        let recorder = Recorder::new(client.clone(), reporter);
        let metrics = Arc::new(Metrics::default());
        let counted = Arc::clone(&metrics);
        let reconciler = StatusReconciler::new(client.clone())
            .recorder(recorder.clone())
            .on_outcome(move |document, outcome| counted.count(document, outcome));
        Operator {
            reconciler,
            client,
            recorder,
            metrics,
        }
    }

    /// One reconcile of `document`: the finalizer, then publishing or retracting it; the
    /// status is the chokepoint's to write.
    pub async fn reconcile(&self, document: Arc<Document>) -> Result<Action, Error> {
        let namespace = document.namespace().unwrap_or_default();
        let api = Api::<Document>::namespaced(self.client.clone(), &namespace);
        let recorder = &self.recorder;
        self.reconciler
            .reconcile(document, async |document: &mut Document| {
                body(document, &api, recorder).await
            })
            .await
    }

    /// Runs the operator on the Documents of `namespace` until the stream of reconciles ends.
    pub async fn run(self: Arc<Self>, namespace: String) {
        let api = Api::<Document>::namespaced(self.client.clone(), &namespace);
        Controller::new(api, watcher::Config::default())
            .run(
                |document, operator: Arc<Operator>| async move { operator.reconcile(document).await },
                |document, error, _| error_policy(document, error, Duration::from_secs(15)),
                self,
            )
            .for_each(|_| async {})
            .await;
    }
}

/// The reconcile's body: no status write and no requeue of its own.
async fn body(
    document: &mut Document,
    api: &Api<Document>,
    recorder: &Recorder,
) -> Result<(), FinalizerError<Failure>> {
    with_finalizer(
        api,
        FINALIZER,
        document,
        async |document: &mut Document| publish(document, recorder).await,
        async |document: &mut Document| retract(document, recorder).await,
    )
    .await
}

/// Publishes `document`: an Event when it is to be hidden and is not yet, and its status.
async fn publish(document: &mut Document, recorder: &Recorder) -> Result<(), Failure> {
    let hidden = document.status.as_ref().is_some_and(|status| status.hidden);
    if document.spec.hide && !hidden {
        let note = format!("hiding {}", document.name_any());
        record(document, recorder, "HideRequested", note, "Hide").await?;
    }
    let (hide, host) = (document.spec.hide, document.spec.host.clone());
    let status = document.status_or_insert();
    status.hidden = hide;
    status.endpoint = host;
    Ok(())
}

/// Retracts `document`, which is being deleted: an Event.
async fn retract(document: &mut Document, recorder: &Recorder) -> Result<(), Failure> {
    let note = format!("{} is being deleted", document.name_any());
    record(document, recorder, "Retracted", note, "Retract").await
}

async fn record(
    document: &Document,
    recorder: &Recorder,
    reason: &str,
    note: String,
    action: &str,
) -> Result<(), Failure> {
    let event = Event {
        type_: EventType::Normal,
        reason: reason.into(),
        note: Some(note),
        action: action.into(),
        secondary: None,
    };
    recorder
        .publish(&event, &document.object_ref(&()))
        .await
        .map_err(|error| Failure::retryable("EventNotRecorded", error.to_string()))
}
