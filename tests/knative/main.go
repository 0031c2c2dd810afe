// Checks kondition's readiness table (runtime/src/profile/knative_readiness.json, read on
// stdin) against knative.dev/pkg's own ConditionSet: for each row, a non-terminal condition Z
// is marked True, which runs markHappy (findUnhappyDependent) without counting Z itself (it
// is of severity Info), and the happy condition's status, reason and severity are compared
// with the row's. Exit 1 when a row differs.
//
//	(cd tests/knative && go run . < ../../runtime/src/profile/knative_readiness.json)
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"knative.dev/pkg/apis"
)

type in struct {
	Type     string  `json:"type"`
	Status   string  `json:"status"`
	Severity *string `json:"severity"`
	Second   int64   `json:"second"`
}

type row struct {
	Name       string   `json:"name"`
	Happy      string   `json:"happy"`
	Dependents []string `json:"dependents"`
	Conditions []in     `json:"conditions"`
	Status     string   `json:"status"`
	DecidedBy  *string  `json:"decidedBy"`
}

type status struct{ c apis.Conditions }

func (s *status) GetConditions() apis.Conditions  { return s.c }
func (s *status) SetConditions(c apis.Conditions) { s.c = c }

func main() {
	var rows []row
	if err := json.NewDecoder(os.Stdin).Decode(&rows); err != nil {
		panic(err)
	}
	failed := 0
	for _, r := range rows {
		deps := make([]apis.ConditionType, 0, len(r.Dependents))
		for _, d := range r.Dependents {
			deps = append(deps, apis.ConditionType(d))
		}
		set := apis.NewLivingConditionSet(deps...)
		if r.Happy == "Succeeded" {
			set = apis.NewBatchConditionSet(deps...)
		}
		s := &status{}
		for _, c := range r.Conditions {
			cond := apis.Condition{
				Type:               apis.ConditionType(c.Type),
				Status:             corev1.ConditionStatus(c.Status),
				Reason:             c.Type + "Reason",
				Message:            c.Type + " says so",
				LastTransitionTime: apis.VolatileTime{Inner: metav1.NewTime(time.Unix(c.Second, 0))},
			}
			if c.Severity != nil {
				cond.Severity = apis.ConditionSeverity(*c.Severity)
			}
			s.c = append(s.c, cond)
		}
		m := set.Manage(s)
		m.MarkTrue("Z")
		h := m.GetTopLevelCondition()
		want := ""
		if r.DecidedBy != nil {
			want = *r.DecidedBy + "Reason"
		}
		verdict := "ok"
		if string(h.Status) != r.Status || h.Reason != want || h.Severity != apis.ConditionSeverityError {
			verdict = "DIFFERS"
			failed++
		}
		fmt.Printf("%s: %s %q severity %q (table: %s %q): %s\n", r.Name, h.Status, h.Reason, h.Severity, r.Status, want, verdict)
	}
	fmt.Printf("%d rows, %d differ\n", len(rows), failed)
	if failed > 0 {
		os.Exit(1)
	}
}
