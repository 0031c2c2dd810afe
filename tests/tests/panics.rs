//! A reconcile body that panics on every retry prints its panic once (issue 37, item 10:
//! under `RUST_BACKTRACE=1` every retry printed a whole backtrace, 10 in 30 s), with
//! `kondition::controller::quiet_repeated_panics`: the panic hook in place sees a body's
//! panic the first time it happens, and every other panic every time; the chokepoint still
//! writes each into Ready. On the real API server. One test in its own binary: the panic
//! hook is the process's.

use std::sync::{Arc, Mutex, PoisonError};

use kondition::controller::{StatusReconciler, quiet_repeated_panics};
use kondition::{Failure, KubeStatus};
use kondition_tests::cluster::TestEnv;
use kondition_tests::kinds::StandardWidget;
use kube::CustomResourceExt;
use kube::api::PostParams;
use serde_json::json;

/// The messages of the panics the hook in place saw, in order.
static SEEN: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn seen() -> Vec<String> {
    SEEN.lock().unwrap_or_else(PoisonError::into_inner).clone()
}

#[tokio::test(start_paused = true)]
async fn a_body_panicking_on_every_retry_reaches_the_hook_once() {
    // The program's own hook (a crash reporter's, say), then kondition's around it.
    std::panic::set_hook(Box::new(|info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        SEEN.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(message);
    }));
    quiet_repeated_panics();
    quiet_repeated_panics(); // a second call changes nothing

    let env = TestEnv::new([StandardWidget::crd()]).await;
    let widget: StandardWidget = serde_json::from_value(json!({
        "apiVersion": "example.com/v1", "kind": "StandardWidget",
        "metadata": {"name": "w1"}, "spec": {"size": 3}
    }))
    .expect("an object");
    env.api::<StandardWidget>()
        .create(&PostParams::default(), &widget)
        .await
        .expect("created");
    let reconciler = StatusReconciler::<StandardWidget>::new(env.client.clone());
    let ready = async || {
        let stored = env
            .api::<StandardWidget>()
            .get_status("w1")
            .await
            .expect("stored");
        let status = stored.status.expect("a status");
        let ready = status
            .conditions()
            .iter()
            .find(|c| c.type_ == "Ready")
            .expect("Ready")
            .clone();
        (ready.reason, ready.message)
    };

    for message in [
        "the cloud SDK panicked",
        "the cloud SDK panicked",
        "the cloud SDK panicked",
        "the cloud SDK panicked again, differently",
        "the cloud SDK panicked again, differently",
    ] {
        let object = env.api::<StandardWidget>().get("w1").await.expect("stored");
        reconciler
            .reconcile(
                Arc::new(object),
                async |_: &mut StandardWidget| -> Result<(), Failure> { panic!("{message}") },
            )
            .await
            .expect("the panic is the status, not an error");
        assert_eq!(
            ready().await,
            ("ReconcilePanicked".to_owned(), message.to_owned()),
            "each retry's panic is written into Ready"
        );
        // The next retry comes once the backoff has passed (before it, nothing is run).
        tokio::time::advance(kondition::RequeuePolicy::default().backoff_max).await;
    }
    assert_eq!(
        seen(),
        [
            "the cloud SDK panicked",
            "the cloud SDK panicked again, differently"
        ],
        "each distinct panic of the body reaches the hook once"
    );

    // Any other panic reaches it every time.
    for _ in 0..2 {
        assert!(std::panic::catch_unwind(|| panic!("not a body's")).is_err());
    }
    assert_eq!(
        seen()[2..],
        ["not a body's", "not a body's"],
        "a panic outside a body reaches the hook every time"
    );
}
