//! Analysis: what the whole run decides from the model before any output is written. The
//! share plan (which structures become one type in `shared`) and the derive plan (which
//! derives each data type gets) need every file of the run, so they are made once here and
//! handed to emission finished ([`Plans`]); emission reads only the model and these plans.

mod derive_plan;
mod share;

pub use derive_plan::{DerivePlan, Optional};
pub use share::Plan;

use crate::derives::Derives;
use crate::model::Model;

/// Every decision emission needs beyond the model, for one run.
#[derive(Debug)]
pub struct Plans {
    /// The structures defined once, in `shared`, and the name each place gives them.
    pub share: Plan,
    /// The derives of every data type.
    pub derives: DerivePlan,
}

impl Plans {
    /// The plans for `model`, the data types going without the derives `without`.
    pub fn new(model: &Model, without: Derives) -> Self {
        let share = share::plan(model);
        let derives = DerivePlan::new(model, &share, without);
        Self { share, derives }
    }
}
