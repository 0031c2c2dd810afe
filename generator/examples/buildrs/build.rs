//! Generates the crate's types from `schemas/` and `crds/` into `$OUT_DIR/kondition.rs`.
//!
//! `crds/` holds two real CRDs of other projects (links into the repository's `corpus/`), as
//! an operator that works beside them would: Kueue's Workload and Argo Rollouts' Rollout.

fn main() {
    if let Err(error) = kondition_gen::Builder::new()
        .schemas(["schemas", "crds"])
        // Workload's conditions are Kueue's own; the standard profile's `Ready` is not one of
        // them. An operator reading Workloads waits for `Admitted` (quota reserved and every
        // admission check passed: the point from which the job may start its pods), so that
        // is its summary: what the status chokepoint's summary and `is_admitted` read.
        // `Finished` is terminal: False for the whole life of a running workload.
        .conditions(
            "Workload",
            [
                "QuotaReserved",
                "Admitted",
                "PodsReady",
                "Finished",
                "Evicted",
                "Preempted",
            ],
        )
        .summary("Workload", "Admitted")
        // Rollout is not named: its status stays plain types (its conditions carry a
        // `lastUpdateTime` and its `observedGeneration` is a string), which the build says in
        // one note; `kondition explain Rollout crds/rollouts.yaml` gives the reasons.
        .generate()
    {
        // Each problem is printed as `path:line:col: message`.
        eprintln!("{error}");
        std::process::exit(1);
    }
}
