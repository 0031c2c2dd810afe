// The path is not one; the keys after it are still read, so no other error follows.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize, kondition::KubeStatus)]
#[kondition(crate = "not a path!", profile = "standard")]
#[serde(rename_all = "camelCase")]
pub struct BadStatus {
    #[serde(default)]
    pub conditions: kondition::Conditions,
    pub observed_generation: Option<i64>,
}

fn main() {}
