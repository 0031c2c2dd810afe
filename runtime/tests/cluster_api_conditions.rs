//! `kondition::merge` against Cluster API's own tests: the cases of
//! `sigs.k8s.io/cluster-api` v1.14.0's `util/conditions/mirror_test.go`
//! (`TestMirrorStatusCondition`), `util/conditions/aggregate_test.go` (`TestAggregate`),
//! `util/conditions/summary_test.go` (`TestSummary`) and
//! `util/conditions/merge_strategies_test.go` (`TestAggregateMessages`, through
//! [`Aggregate`]), each under its name there, with their inputs and expected conditions.
//!
//! Rewritten where kondition's validation differs: reasons with a `-` or `!`, which the API
//! server's reason pattern refuses (`Reason-1`, `AllGood!`), are written without it
//! (`Reason1`), and the condition type `!C` (refused by the type pattern) is `NotC`;
//! messages are Cluster API's, word for word. Every condition made here must also pass
//! kondition's validation. Cases Cluster API refuses at run time that kondition's API
//! cannot express are named where they would be.

use kondition::merge::{
    Aggregate, MergeError, MergeStrategy, MergedSummary, Mirror, Owner, Priority,
};
use kondition::testing::Match;
use kondition::{Condition, ConditionStatus, Polarity, Time};

use ConditionStatus::{False, True, Unknown};

fn c(type_: &str, status: ConditionStatus, reason: &str, message: &str) -> Condition {
    Condition::new(type_, status, reason).with_message(message)
}

/// The expected condition, and that the one made passes kondition's validation.
#[track_caller]
fn expect(name: &str, got: &Condition, want: &Condition) {
    if let Err(mismatch) = Match::new().condition(Some(got), want) {
        panic!("{name}: {mismatch}");
    }
    assert!(
        got.validate().is_ok(),
        "{name}: {got:?} is not valid: {:?}",
        got.validate()
    );
}

// ---- mirror_test.go: TestMirrorStatusCondition ----

#[test]
fn mirror_status_condition() {
    let now = Time("2026-01-02T03:04:05Z".parse().expect("a time"));
    let good = |message: &str| {
        Condition::new("Ready", True, "AllGood")
            .with_message(message)
            .with_observed_generation(10)
            .at(now.clone())
    };
    // The source's observedGeneration is not carried over (this object's own is set when it
    // is stored); its lastTransitionTime is, and is compared too.
    let mirrored = |message: &str| Condition {
        observed_generation: None,
        ..good(message)
    };
    let source = [good("We are good!")];
    let with_time = Match::new().with_last_transition_time();

    let got = Mirror::new("Ready").compute(&source);
    expect("Mirror a condition", &got, &mirrored("We are good!"));
    with_time.assert_condition(Some(&got), &mirrored("We are good!"));

    let got = Mirror::new("Ready")
        .target_type("SomethingReady")
        .compute(&source);
    let want = mirrored("We are good!").with_type("SomethingReady");
    expect("Mirror a condition with target type", &got, &want);
    with_time.assert_condition(Some(&got), &want);

    let got = Mirror::new("Ready").compute(&[good("")]);
    expect("Mirror a condition with empty message", &got, &mirrored(""));
    with_time.assert_condition(Some(&got), &mirrored(""));

    let got = Mirror::new("Ready").compute(&[]);
    let want = c(
        "Ready",
        Unknown,
        "NotYetReported",
        "Condition Ready not yet reported",
    );
    expect("Mirror a condition not yet reported", &got, &want);

    let got = Mirror::new("Ready")
        .target_type("SomethingReady")
        .compute(&[]);
    let want = c(
        "SomethingReady",
        Unknown,
        "NotYetReported",
        "Condition Ready not yet reported",
    );
    expect(
        "Mirror a condition not yet reported with target type",
        &got,
        &want,
    );

    let got = Mirror::new("Ready")
        .fallback(True, "SomeReason", "Foo")
        .compute(&[]);
    let want = c("Ready", True, "SomeReason", "Foo");
    expect(
        "Mirror a condition not yet reported with a fallback condition",
        &got,
        &want,
    );

    // Cluster API's reason `AllGood!` as it is: the mirror makes it a valid reason.
    let got = Mirror::new("Ready").compute(&[c("Ready", True, "AllGood!", "We are good!")]);
    expect(
        "(kondition) an invalid reason",
        &got,
        &c("Ready", True, "AllGood", "We are good!"),
    );
}

// ---- aggregate_test.go: TestAggregate ----

/// Objects `obj0`, `obj1`, ... of kind Phase3Obj, each with the conditions given.
fn aggregate(aggregate: &Aggregate, objects: &[&[Condition]]) -> Result<Condition, MergeError> {
    aggregate.compute(
        objects
            .iter()
            .enumerate()
            .map(|(i, conditions)| (Owner::new("Phase3Obj", format!("obj{i}")), *conditions)),
    )
}

/// One object's single condition.
fn one(type_: &str, status: ConditionStatus, reason: &str, message: &str) -> Vec<Condition> {
    vec![c(type_, status, reason, message)]
}

#[track_caller]
fn expect_aggregate(name: &str, setup: &Aggregate, objects: &[Vec<Condition>], want: &Condition) {
    let objects: Vec<&[Condition]> = objects.iter().map(Vec::as_slice).collect();
    let got = aggregate(setup, &objects).unwrap_or_else(|e| panic!("{name}: {e}"));
    expect(name, &got, want);
}

#[test]
fn aggregate_cases() {
    let available = Aggregate::new("Available");
    let a = |status, reason: &str, message: &str| one("Available", status, reason, message);
    let s = |status, reason: &str, message: &str| one("ScalingUp", status, reason, message);

    expect_aggregate(
        "One issue",
        &available,
        &[
            a(False, "Reason1", "Message-1"),
            a(True, "Reason99", "Message-99"),
        ],
        &c(
            "Available",
            False,
            "IssuesReported",
            "* Phase3Obj obj0: Message-1",
        ),
    );
    let scaling_up = Aggregate::new("ScalingUp").negative_polarity();
    expect_aggregate(
        "One issue with negative polarity",
        &scaling_up,
        &[
            s(True, "Reason1", "Message-1"),
            s(False, "Reason99", "Message-99"),
        ],
        &c(
            "ScalingUp",
            True,
            "IssuesReported",
            "* Phase3Obj obj0: Message-1",
        ),
    );
    // "Error if negative polarity conditions are misconfigured" (a negative polarity named
    // for another type than the aggregated one): `negative_polarity()` names no type.
    let custom = |target, reasons: [&str; 3]| {
        Aggregate::new("ScalingUp").negative_polarity().strategy(
            MergeStrategy::new()
                .target_polarity(target)
                .negative_polarity(["ScalingUp"])
                .reasons(reasons[0], reasons[1], reasons[2]),
        )
    };
    expect_aggregate(
        "One issue with custom merge strategy",
        &custom(Polarity::Positive, ["bad", "unknown", "good"]),
        &[
            s(True, "Reason1", "Message-1"),
            s(False, "Reason99", "Message-99"),
        ],
        &c("ScalingUp", False, "bad", "* Phase3Obj obj0: Message-1"),
    );
    expect_aggregate(
        "One issue with custom merge strategy (negative polarity)",
        &custom(Polarity::Negative, ["good", "unknown", "bad"]),
        &[
            s(True, "Reason1", "Message-1"),
            s(False, "Reason99", "Message-99"),
        ],
        &c("ScalingUp", True, "good", "* Phase3Obj obj0: Message-1"),
    );
    expect_aggregate(
        "One issue with target type",
        &Aggregate::new("Available").target_type("SomethingAvailable"),
        &[
            a(False, "Reason1", "Message-1"),
            a(True, "Reason99", "Message-99"),
        ],
        &c(
            "SomethingAvailable",
            False,
            "IssuesReported",
            "* Phase3Obj obj0: Message-1",
        ),
    );
    expect_aggregate(
        "One issue with target type and negative polarity",
        &Aggregate::new("ScalingUp")
            .target_type("SomethingAvailable")
            .negative_polarity(),
        &[
            s(True, "Reason1", "Message-1"),
            s(False, "Reason99", "Message-99"),
        ],
        &c(
            "SomethingAvailable",
            True,
            "IssuesReported",
            "* Phase3Obj obj0: Message-1",
        ),
    );
    expect_aggregate(
        "Same issue from up to three objects",
        &available,
        &[
            a(False, "Reason1", "Message-1"),
            a(False, "Reason1", "Message-1"),
            a(False, "Reason1", "Message-1"),
            a(True, "Reason99", "Message-99"),
        ],
        &c(
            "Available",
            False,
            "IssuesReported",
            "* Phase3Objs obj0, obj1, obj2: Message-1",
        ),
    );
    expect_aggregate(
        "Same issue from more than three objects",
        &available,
        &[
            a(False, "Reason1", "Message-1"),
            a(False, "Reason1", "Message-1"),
            a(False, "Reason1", "Message-1"),
            a(False, "Reason1", "Message-1"),
            a(False, "ReasonB", "Message-1"),
            // Cluster API's has no reason, which kondition requires.
            a(True, "Reason99", "Message-99"),
        ],
        &c(
            "Available",
            False,
            "IssuesReported",
            "* Phase3Objs obj0, obj1, obj2, ... (2 more): Message-1",
        ),
    );
    expect_aggregate(
        "Up to three different issue messages",
        &available,
        &[
            a(False, "Reason1", "Message-1"),
            a(False, "Reason2", "Message-2"),
            a(False, "Reason2", "Message-2"),
            a(False, "Reason1", "Message-1"),
            a(False, "Reason1", "Message-1"),
            a(False, "Reason3", "Message-3"),
            a(True, "Reason99", "Message-99"),
        ],
        &c(
            "Available",
            False,
            "IssuesReported",
            "* Phase3Objs obj0, obj3, obj4: Message-1\n\
             * Phase3Objs obj1, obj2: Message-2\n\
             * Phase3Obj obj5: Message-3",
        ),
    );
    expect_aggregate(
        "Up to three different issue messages; if message is a list, it should be indented",
        &available,
        &[
            a(False, "Reason1", "* Message-1"),
            a(False, "Reason2", "* Message-2A\n* Message-2B"),
            a(False, "Reason2", "* Message-2A\n* Message-2B"),
            a(False, "Reason1", "* Message-1"),
            a(False, "Reason1", "* Message-1"),
            a(False, "Reason3", "* Message-3"),
            a(True, "Reason99", "Message-99"),
        ],
        &c(
            "Available",
            False,
            "IssuesReported",
            "* Phase3Objs obj0, obj3, obj4:\n  * Message-1\n\
             * Phase3Objs obj1, obj2:\n  * Message-2A\n  * Message-2B\n\
             * Phase3Obj obj5:\n  * Message-3",
        ),
    );
    expect_aggregate(
        "More than three different issue messages",
        &available,
        &[
            a(False, "Reason1", "Message-1"),
            a(False, "Reason2", "Message-2"),
            a(False, "Reason4", "Message-4"),
            a(False, "Reason5", "Message-5"),
            a(False, "Reason1", "Message-1"),
            a(False, "Reason3", "Message-3"),
            a(True, "Reason99", "Message-99"),
        ],
        &c(
            "Available",
            False,
            "IssuesReported",
            "* Phase3Objs obj0, obj4: Message-1\n\
             * Phase3Obj obj1: Message-2\n\
             * Phase3Obj obj2: Message-4\n\
             And 2 Phase3Objs with other issues",
        ),
    );
    expect_aggregate(
        "Less than 2 issue messages and unknown message",
        &available,
        &[
            a(False, "Reason1", "Message-1"),
            a(False, "Reason2", "Message-2"),
            a(Unknown, "Reason3", "Message-3"),
            a(True, "Reason99", "Message-99"),
        ],
        &c(
            "Available",
            False,
            "IssuesReported",
            "* Phase3Obj obj0: Message-1\n\
             * Phase3Obj obj1: Message-2\n\
             * Phase3Obj obj2: Message-3",
        ),
    );
    expect_aggregate(
        "At least 3 issue messages and unknown message",
        &available,
        &[
            a(False, "Reason1", "Message-1"),
            a(False, "Reason2", "Message-2"),
            a(Unknown, "Reason3", "Message-3"),
            a(False, "Reason4", "Message-4"),
            a(True, "Reason99", "Message-99"),
        ],
        &c(
            "Available",
            False,
            "IssuesReported",
            "* Phase3Obj obj0: Message-1\n\
             * Phase3Obj obj1: Message-2\n\
             * Phase3Obj obj3: Message-4\n\
             And 1 Phase3Obj with status unknown",
        ),
    );
    expect_aggregate(
        "More than 3 issue messages and unknown message",
        &available,
        &[
            a(False, "Reason1", "Message-1"),
            a(False, "Reason2", "Message-2"),
            a(Unknown, "Reason3", "Message-3"),
            a(False, "Reason4", "Message-4"),
            a(False, "Reason5", "Message-5"),
            a(False, "Reason6", "Message-6"),
            a(True, "Reason99", "Message-99"),
        ],
        &c(
            "Available",
            False,
            "IssuesReported",
            "* Phase3Obj obj0: Message-1\n\
             * Phase3Obj obj1: Message-2\n\
             * Phase3Obj obj3: Message-4\n\
             And 2 Phase3Objs with other issues\n\
             And 1 Phase3Obj with status unknown",
        ),
    );
    expect_aggregate(
        "unknown messages",
        &available,
        &[
            a(Unknown, "Reason1", "Message-1"),
            a(Unknown, "Reason2", "Message-2"),
            a(Unknown, "Reason4", "Message-4"),
            a(Unknown, "Reason5", "Message-5"),
            a(Unknown, "Reason1", "Message-1"),
            a(Unknown, "Reason3", "Message-3"),
            a(True, "Reason99", "Message-99"),
        ],
        &c(
            "Available",
            Unknown,
            "UnknownReported",
            "* Phase3Objs obj0, obj4: Message-1\n\
             * Phase3Obj obj1: Message-2\n\
             * Phase3Obj obj2: Message-4\n\
             And 2 Phase3Objs with status unknown",
        ),
    );
    expect_aggregate(
        "info messages",
        &available,
        &[
            a(True, "Reason1", "Message-1"),
            a(True, "Reason2", "Message-2"),
            a(True, "Reason4", "Message-4"),
            a(True, "Reason5", ""),
            a(True, "Reason1", "Message-1"),
            a(True, "Reason3", "Message-3"),
        ],
        &c(
            "Available",
            True,
            "InfoReported",
            "* Phase3Objs obj0, obj4: Message-1\n\
             * Phase3Obj obj1: Message-2\n\
             * Phase3Obj obj2: Message-4\n\
             And 1 Phase3Obj with additional info",
        ),
    );
    expect_aggregate(
        "Missing conditions are defaulted",
        &available,
        &[a(False, "Reason1", "Message-1"), vec![]],
        &c(
            "Available",
            False,
            "IssuesReported",
            "* Phase3Obj obj0: Message-1\n\
             * Phase3Obj obj1: Condition Available not yet reported",
        ),
    );
    expect_aggregate(
        "Missing conditions are defaulted why a custom target condition type",
        &Aggregate::new("Available").target_type("SomethingAvailable"),
        &[a(False, "Reason1", "Message-1"), vec![]],
        &c(
            "SomethingAvailable",
            False,
            "IssuesReported",
            "* Phase3Obj obj0: Message-1\n\
             * Phase3Obj obj1: Condition Available not yet reported",
        ),
    );
    // "Fails if source objects are empty"
    assert_eq!(aggregate(&available, &[]), Err(MergeError::NoObjects));
}

// ---- merge_strategies_test.go: TestAggregateMessages, through Aggregate ----

#[test]
fn aggregate_messages() {
    let objects =
        |list: &[(&str, &str, bool, ConditionStatus, &str)]| -> Vec<(Owner, Vec<Condition>)> {
            list.iter()
                .map(|(kind, name, control_plane, status, message)| {
                    let mut owner = Owner::new(*kind, *name);
                    if *control_plane {
                        owner = owner.control_plane_machine();
                    }
                    (owner, vec![c("A", *status, "Reason", message)])
                })
                .collect()
        };
    let merged = |objects: &[(Owner, Vec<Condition>)]| {
        Aggregate::new("A")
            .compute(objects.iter().map(|(o, c)| (o.clone(), c.as_slice())))
            .expect("objects")
    };
    let md = "MachineDeployment";

    let case = objects(&[
        (md, "obj02", false, False, "Message-1"),
        (md, "obj01", false, False, "Message-1"),
        (md, "obj04", false, False, "* Message-2"),
        (md, "obj03", false, False, "* Message-2"),
        (md, "obj06", false, False, "* Message-3A\n* Message-3B"),
        (md, "obj05", false, False, "Message-1"),
        (md, "obj08", false, False, "Message-1"),
        (md, "obj07", false, False, "Message-4"),
        (md, "obj09", false, False, "Message-1"),
        (md, "obj10", false, False, "Message-5"),
        ("MachineSet", "obj11", false, False, "Message-1"),
        ("MachineSet", "obj12", false, False, "Message-1"),
    ]);
    expect(
        "Groups by kind, return max 3 messages, aggregate objects, count others",
        &merged(&case),
        &c(
            "A",
            False,
            "IssuesReported",
            "* MachineDeployments obj01, obj02, obj05, ... (2 more): Message-1\n\
             * MachineDeployments obj03, obj04:\n  * Message-2\n\
             * MachineDeployment obj06:\n  * Message-3A\n  * Message-3B\n\
             And 2 MachineDeployments with other issues\n\
             And 2 MachineSets with other issues",
        ),
    );

    let case = objects(&[
        (md, "obj02", false, Unknown, "Message-1"),
        (md, "obj01", false, Unknown, "Message-1"),
        (md, "obj04", false, False, "* Message-2"),
        (md, "obj03", false, False, "* Message-2"),
        (md, "obj06", false, False, "* Message-3A\n* Message-3B"),
        (md, "obj05", false, Unknown, "Message-1"),
        (md, "obj08", false, Unknown, "Message-1"),
        (md, "obj07", false, False, "Message-4\n* More Message-4"),
        (md, "obj09", false, Unknown, "Message-1"),
        (md, "obj10", false, False, "Message-5"),
    ]);
    expect(
        "Issue messages goes before unknown",
        &merged(&case),
        &c(
            "A",
            False,
            "IssuesReported",
            "* MachineDeployments obj03, obj04:\n  * Message-2\n\
             * MachineDeployment obj06:\n  * Message-3A\n  * Message-3B\n\
             * MachineDeployment obj07:\n  * Message-4\n    * More Message-4\n\
             And 1 MachineDeployment with other issues\n\
             And 5 MachineDeployments with status unknown",
        ),
    );

    let case = objects(&[
        ("Machine", "obj02", true, Unknown, "* Message-1"),
        ("Machine", "obj01", false, Unknown, "* Message-1"),
        ("Machine", "obj04", false, False, "* Message-2"),
        ("Machine", "obj03", false, False, "* Message-2"),
        (
            "Machine",
            "obj06",
            false,
            False,
            "* Message-3A\n* Message-3B",
        ),
        ("Machine", "obj05", false, False, "* Message-2"),
    ]);
    expect(
        "Control plane machines always goes before other machines",
        &merged(&case),
        &c(
            "A",
            False,
            "IssuesReported",
            "* Machines obj02, obj01:\n  * Message-1\n\
             * Machines obj03, obj04, obj05:\n  * Message-2\n\
             * Machine obj06:\n  * Message-3A\n  * Message-3B",
        ),
    );
}

// ---- summary_test.go: TestSummary ----

fn summary(setup: &MergedSummary, conditions: &[Condition]) -> Result<Condition, MergeError> {
    setup.compute(Owner::new("Phase3Obj", "SourceObject"), conditions)
}

#[track_caller]
fn expect_summary(name: &str, setup: &MergedSummary, conditions: &[Condition], want: &Condition) {
    let got = summary(setup, conditions).unwrap_or_else(|e| panic!("{name}: {e}"));
    expect(name, &got, want);
}

#[test]
fn summary_cases() {
    let abc = || {
        MergedSummary::new("Available")
            .for_types(["A", "B", "NotC"])
            .negative_polarity(["NotC"])
    };
    expect_summary(
        "One issue",
        &abc(),
        &[
            c("B", True, "ReasonB", "Message-B"),
            c("A", True, "ReasonA", "Message-A"),
            c("NotC", True, "ReasonNotC", "Message-!C"),
        ],
        &c("Available", False, "IssuesReported", "* NotC: Message-!C"),
    );
    expect_summary(
        "One issue without message",
        &abc(),
        &[
            c("B", True, "ReasonB", ""),
            c("A", True, "ReasonA", ""),
            c("NotC", True, "ReasonNotC", ""),
        ],
        &c("Available", False, "IssuesReported", "* NotC: ReasonNotC"),
    );
    expect_summary(
        "More than one issue",
        &abc(),
        &[
            c("B", False, "ReasonB", "Message-B"),
            c("A", True, "ReasonA", "Message-A"),
            c("NotC", True, "ReasonNotC", "Message-!C"),
        ],
        &c(
            "Available",
            False,
            "IssuesReported",
            "* B: Message-B\n* NotC: Message-!C",
        ),
    );
    expect_summary(
        "More than one issue, some with multiline messages",
        &MergedSummary::new("Available")
            .for_types(["A", "B", "NotC", "D"])
            .negative_polarity(["NotC"]),
        &[
            c("B", False, "ReasonB", "Message-B"),
            c("A", True, "ReasonA", "Message-A"),
            c("NotC", True, "ReasonNotC", "* Message-!C1\n* Message-!C2"),
            c("D", False, "ReasonD", "Message-D\n* More message-D"),
        ],
        &c(
            "Available",
            False,
            "IssuesReported",
            "* B: Message-B\n\
             * NotC:\n  * Message-!C1\n  * Message-!C2\n\
             * D:\n  * Message-D\n    * More message-D",
        ),
    );
    expect_summary(
        "More than one issue and one unknown condition",
        &abc(),
        &[
            c("B", False, "ReasonB", "Message-B"),
            c("A", Unknown, "ReasonA", "Message-A"),
            c("NotC", True, "ReasonNotC", "Message-!C"),
        ],
        &c(
            "Available",
            False,
            "IssuesReported",
            "* A: Message-A\n* B: Message-B\n* NotC: Message-!C",
        ),
    );
    expect_summary(
        "One unknown (no issues)",
        &abc(),
        &[
            c("B", True, "ReasonB", "Message-B"),
            c("A", True, "ReasonA", "Message-A"),
            c("NotC", Unknown, "ReasonNotC", "Message-!C"),
        ],
        &c(
            "Available",
            Unknown,
            "UnknownReported",
            "* NotC: Message-!C",
        ),
    );
    expect_summary(
        "More than one unknown (no issues)",
        &abc(),
        &[
            c("B", Unknown, "ReasonB", "Message-B"),
            c("A", True, "ReasonA", "Message-A"),
            c("NotC", Unknown, "ReasonNotC", "Message-!C"),
        ],
        &c(
            "Available",
            Unknown,
            "UnknownReported",
            "* B: Message-B\n* NotC: Message-!C",
        ),
    );
    fn to_lower(lines: Vec<String>) -> Vec<String> {
        lines.into_iter().map(|l| l.to_lowercase()).collect()
    }
    expect_summary(
        "More than one info (no issues, no unknown)",
        &abc().strategy(
            MergeStrategy::new()
                .target_polarity(Polarity::Positive)
                .negative_polarity(["NotC"])
                .summary_messages(to_lower),
        ),
        &[
            c("B", True, "ReasonB", "Message-B"),
            c("A", True, "ReasonA", ""),
            c("NotC", False, "ReasonNotC", "Message-!C"),
        ],
        &c(
            "Available",
            True,
            "InfoReported",
            "* b: message-b\n* notc: message-!c",
        ),
    );
    expect_summary(
        "Default missing conditions to unknown",
        &abc(),
        &[c("A", True, "ReasonA", "Message-A")],
        &c(
            "Available",
            Unknown,
            "UnknownReported",
            "* B: Condition not yet reported\n* NotC: Condition not yet reported",
        ),
    );
    expect_summary(
        "Default missing conditions to unknown consider IgnoreTypesIfMissing",
        &abc().ignore_if_missing(["B"]),
        &[c("A", True, "ReasonA", "Message-A")],
        &c(
            "Available",
            Unknown,
            "UnknownReported",
            "* NotC: Condition not yet reported",
        ),
    );
    expect_summary(
        "No issue considering IgnoreTypesIfMissing",
        &abc().ignore_if_missing(["B", "NotC"]),
        &[c("A", True, "ReasonA", "Message-A")],
        &c("Available", True, "InfoReported", "* A: Message-A"),
    );
    expect_summary(
        "Ignore conditions not in scope",
        &MergedSummary::new("Available").for_types(["A", "B"]),
        &[
            c("B", True, "ReasonB", "Message-B"),
            c("A", True, "ReasonA", ""),
            c("NotC", Unknown, "ReasonNotC", "Message-!C"),
        ],
        &c("Available", True, "InfoReported", "* B: Message-B"),
    );
    let additional = c("NotC", True, "ReasonCAdditional", "Message-C-additional");
    let with_override = MergedSummary::new("Available")
        .for_types(["A", "NotC"])
        .negative_polarity(["NotC"])
        .ignore_if_missing(["NotC"])
        .override_condition(additional.clone());
    let a_and_c = [
        c("A", True, "ReasonA", "Message-A"),
        c("NotC", True, "ReasonC", "Message-C"),
    ];
    expect_summary(
        "Override condition",
        &with_override,
        &a_and_c,
        &c(
            "Available",
            False,
            "IssuesReported",
            "* NotC: Message-C-additional",
        ),
    );
    assert_eq!(
        summary(&MergedSummary::new("Available"), &[]),
        Err(MergeError::NoConditionTypes),
        "Error if ForConditionTypes is not set"
    );
    assert_eq!(
        summary(
            &MergedSummary::new("Available").for_types(["Available"]),
            &[]
        ),
        Err(MergeError::MergesItself("Available".into())),
        "Error if ForConditionTypes includes target condition"
    );
    assert_eq!(
        summary(
            &with_override.clone().override_condition(additional),
            &a_and_c
        ),
        Err(MergeError::OverriddenTwice("NotC".into())),
        "Error if the same override condition is specified multiple times"
    );
    assert_eq!(
        summary(&with_override, &a_and_c[..1]),
        Err(MergeError::OverrideOfMissing("NotC".into())),
        "Error if override condition does not exist in source object"
    );
    assert_eq!(
        summary(
            &MergedSummary::new("Available")
                .for_types(["A"])
                .ignore_if_missing(["A"]),
            &[]
        ),
        Err(MergeError::NothingToMerge),
        "Fails if conditions in scope are empty"
    );
}

// ---- beyond Cluster API's cases: kondition's own bounds ----

#[test]
fn merged_conditions_stay_valid_with_long_messages_and_custom_priorities() {
    let long = "x".repeat(40_000);
    let objects: Vec<Vec<Condition>> = (0..5).map(|_| one("Ready", False, "R", &long)).collect();
    let merged = aggregate(
        &Aggregate::new("Ready"),
        &objects.iter().map(Vec::as_slice).collect::<Vec<_>>(),
    )
    .expect("objects");
    assert!(merged.validate().is_ok(), "{:?}", merged.validate());
    assert!(merged.message.len() <= 32_768);

    // A priority of the caller's: everything is info.
    fn info(_: &Condition) -> Priority {
        Priority::Info
    }
    let merged = aggregate(
        &Aggregate::new("Ready").strategy(MergeStrategy::new().priority(info)),
        &[&one("Ready", False, "R", "m")],
    )
    .expect("objects");
    assert_eq!(
        (merged.status, merged.reason.as_str()),
        (True, "InfoReported")
    );
}

#[test]
fn owners_of_kubernetes_objects() {
    use kube_core::{ApiResource, DynamicObject, GroupVersionKind};

    let machine_kind = ApiResource::from_gvk(&GroupVersionKind::gvk(
        "cluster.x-k8s.io",
        "v1beta2",
        "Machine",
    ));
    let mut machine = DynamicObject::new("cp-0", &machine_kind);
    assert_eq!(
        Owner::of(&machine, &machine_kind),
        Owner::new("Machine", "cp-0")
    );
    machine.metadata.labels = Some(
        [("cluster.x-k8s.io/control-plane".to_owned(), String::new())]
            .into_iter()
            .collect(),
    );
    assert_eq!(
        Owner::of(&machine, &machine_kind),
        Owner::new("Machine", "cp-0").control_plane_machine()
    );
    // The label counts on Machines only, as in Cluster API.
    let node_kind = ApiResource::from_gvk(&GroupVersionKind::gvk("", "v1", "Node"));
    let mut node = DynamicObject::new("n-0", &node_kind);
    node.metadata.labels = machine.metadata.labels.clone();
    assert_eq!(Owner::of(&node, &node_kind), Owner::new("Node", "n-0"));
}
