//! The standard condition sets ("status profiles") a schema can name, with their condition
//! types, reasons and the conditions each reconcile outcome becomes.
//!
//! | profile | conditions | for |
//! | --- | --- | --- |
//! | [`standard`] | Ready (ReconciliationSuccess, ReconciliationError) | gitops-promoter's shape |
//! | [`aso`] | Ready with severity and ASO's reasons | cloud resources |
//! | [`orc`] | Available, Progressing, and SubResourcesReady | resources with sub-resources |
//! | [`kstatus`] | Ready, Reconciling, Stalled | `kubectl wait`, Helm, Flux, kstatus |

pub mod aso;
pub mod kstatus;
pub mod orc;
pub mod standard;

/// The Ready condition type every profile but `orc` summarises into.
pub const READY: &str = "Ready";
