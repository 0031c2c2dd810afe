use kondition::KubeStatus;

#[derive(KubeStatus)]
#[kondition(conditions(Ready))]
pub enum WidgetStatus {
    Ready,
    NotReady,
}

fn main() {}
