// Command controller is the side-by-side benchmark's job written with controller-runtime the
// idiomatic way: a Widget (the same CRD as kondition's widget_operator) reconciled by setting
// its Ready condition with meta.SetStatusCondition and its observedGeneration, and a status
// update only when either changed. Everything else is controller-runtime's default: one
// worker, the cache's full objects, no client-side rate limit (controller-runtime turns it
// off), reads from the cache.
//
//	controller [-resync DURATION]
//
// KUBECONFIG names the cluster. It stops on SIGTERM or SIGINT.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// WidgetSpec is the README's Widget spec.
type WidgetSpec struct {
	Size int32 `json:"size"`
}

// WidgetStatus is the standard status: conditions and observedGeneration.
type WidgetStatus struct {
	Conditions         []metav1.Condition `json:"conditions,omitempty"`
	ObservedGeneration int64              `json:"observedGeneration,omitempty"`
}

// Widget is the kind the benchmark reconciles.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetSpec   `json:"spec"`
	Status            WidgetStatus `json:"status,omitempty"`
}

// WidgetList is a list of Widgets.
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}

// DeepCopyObject copies a Widget (what controller-gen would write).
func (w *Widget) DeepCopyObject() runtime.Object {
	out := *w
	w.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Status.Conditions = make([]metav1.Condition, len(w.Status.Conditions))
	for i := range w.Status.Conditions {
		w.Status.Conditions[i].DeepCopyInto(&out.Status.Conditions[i])
	}
	return &out
}

// DeepCopyObject copies a WidgetList.
func (l *WidgetList) DeepCopyObject() runtime.Object {
	out := *l
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	out.Items = make([]Widget, len(l.Items))
	for i := range l.Items {
		out.Items[i] = *l.Items[i].DeepCopyObject().(*Widget)
	}
	return &out
}

var groupVersion = schema.GroupVersion{Group: "example.com", Version: "v1"}

type reconciler struct {
	client.Client
}

// Reconcile sets Ready and observedGeneration, and updates the status only when they changed.
func (r *reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var widget Widget
	if err := r.Get(ctx, req.NamespacedName, &widget); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	changed := meta.SetStatusCondition(&widget.Status.Conditions, metav1.Condition{
		Type:               "Ready",
		Status:             metav1.ConditionTrue,
		Reason:             "Succeeded",
		Message:            "The resource is ready",
		ObservedGeneration: widget.Generation,
	})
	if widget.Status.ObservedGeneration != widget.Generation {
		widget.Status.ObservedGeneration = widget.Generation
		changed = true
	}
	if !changed {
		return ctrl.Result{}, nil
	}

	return ctrl.Result{}, r.Status().Update(ctx, &widget)
}

func main() {
	resync := flag.Duration("resync", 10*time.Hour, "the cache's resync period (controller-runtime's SyncPeriod)")
	flag.Parse()
	scheme := runtime.NewScheme()
	scheme.AddKnownTypes(groupVersion, &Widget{}, &WidgetList{})
	metav1.AddToGroupVersion(scheme, groupVersion)
	manager, err := ctrl.NewManager(ctrl.GetConfigOrDie(), ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Cache:                  cache.Options{SyncPeriod: resync},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	err = ctrl.NewControllerManagedBy(manager).For(&Widget{}).Complete(&reconciler{manager.GetClient()})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := manager.Start(ctrl.SetupSignalHandler()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
