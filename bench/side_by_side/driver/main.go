// Command driver runs one controller through the side-by-side benchmark on a running API
// server and prints what it measured as one JSON line:
//
//  1. N Widgets are created in a new namespace (before the controller starts);
//  2. the controller (the command after the flags) starts; time until every Widget is Ready
//     with status.observedGeneration equal to its generation;
//  3. the spec of 10% of them changes at once; time until they are Ready at their new
//     generation;
//  4. a steady phase of -steady (several resyncs of the controller): nothing changes;
//  5. the controller is stopped (SIGTERM); its CPU time comes from wait4's rusage, its peak
//     resident memory from the kernel's high-water mark of each process in its group, read
//     just before (wait4's maxrss is no measure of it: exec records the high-water mark of
//     the memory the child had before it, which a vfork child shares with the driver, so
//     it is at least the driver's own, Widgets it follows included).
//
// Requests are counted at the API server (its /metrics, apiserver_request_total of the
// widgets resource): status writes per phase, and every request of the controller on
// Widgets over the run (the driver's own, which it counts as it sends them, subtracted).
//
//	driver -kubeconfig FILE -n 1000 -name kondition -steady 60s -- COMMAND ARGS...
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

var widgets = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}

// counting counts the driver's own requests on Widgets that are not watches (a watch the
// server counts only when it ends, and the driver's outlives every measurement).
type counting struct {
	next http.RoundTripper
	n    *atomic.Int64
}

func (c counting) RoundTrip(r *http.Request) (*http.Response, error) {
	if strings.Contains(r.URL.Path, "/widgets") && r.URL.Query().Get("watch") != "true" {
		c.n.Add(1)
	}
	return c.next.RoundTrip(r)
}

// tracker follows every Widget of the namespace through one watch and says when all are
// Ready at their generation.
type tracker struct {
	mu      sync.Mutex
	ready   map[string]bool
	changed chan struct{}
}

func isReady(o *unstructured.Unstructured) bool {
	observed, _, _ := unstructured.NestedInt64(o.Object, "status", "observedGeneration")
	if observed != o.GetGeneration() {
		return false
	}
	conditions, _, _ := unstructured.NestedSlice(o.Object, "status", "conditions")
	for _, c := range conditions {
		m, _ := c.(map[string]interface{})
		if m["type"] == "Ready" {
			return m["status"] == "True"
		}
	}
	return false
}

func (t *tracker) update(o *unstructured.Unstructured) {
	t.mu.Lock()
	t.ready[o.GetName()] = isReady(o)
	t.mu.Unlock()
	select {
	case t.changed <- struct{}{}:
	default:
	}
}

func (t *tracker) allReady(n int) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.ready) < n {
		return false
	}
	for _, r := range t.ready {
		if !r {
			return false
		}
	}
	return true
}

func (t *tracker) waitAll(n int, bound time.Duration) error {
	deadline := time.After(bound)
	for !t.allReady(n) {
		select {
		case <-t.changed:
		case <-deadline:
			return fmt.Errorf("not all %d Widgets Ready within %s", n, bound)
		}
	}
	return nil
}

// follow lists the namespace's Widgets and watches them from there, feeding the tracker;
// when a watch ends (the server ends them now and then) it lists and watches again. Each
// ended watch is added to own: the server counts a watch when it ends.
func follow(ctx context.Context, client dynamic.Interface, namespace string, t *tracker, own *atomic.Int64) error {
	api := client.Resource(widgets).Namespace(namespace)
	start := func() (watch.Interface, error) {
		list, err := api.List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		for i := range list.Items {
			t.update(&list.Items[i])
		}
		return api.Watch(ctx, metav1.ListOptions{ResourceVersion: list.GetResourceVersion()})
	}
	w, err := start()
	if err != nil {
		return err
	}
	go func() {
		for {
			for event := range w.ResultChan() {
				if event.Type == watch.Added || event.Type == watch.Modified {
					if o, ok := event.Object.(*unstructured.Unstructured); ok {
						t.update(o)
					}
				}
			}
			if ctx.Err() != nil {
				return
			}
			own.Add(1)
			for {
				if w, err = start(); err == nil {
					break
				}
				if ctx.Err() != nil {
					return
				}
				fmt.Fprintln(os.Stderr, "driver: watching Widgets again:", err)
				time.Sleep(time.Second)
			}
		}
	}()
	return nil
}

// groupPeakRSS is the largest peak resident memory (VmHWM, KiB) among the running processes
// of process group pgid.
func groupPeakRSS(pgid int) (int64, error) {
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		return 0, err
	}
	var peak int64
	found := false
	for _, path := range stats {
		stat, err := os.ReadFile(path)
		if err != nil {
			continue // gone since the glob
		}
		// After the command's name in parentheses (which may hold spaces): state, ppid, pgrp.
		fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(fields) < 3 || fields[2] != strconv.Itoa(pgid) {
			continue
		}
		status, err := os.ReadFile(filepath.Join(filepath.Dir(path), "status"))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(status), "\n") {
			if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
				var kib int64
				if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%d kB", &kib); err == nil {
					found = true
					peak = max(peak, kib)
				}
			}
		}
	}
	if !found {
		return 0, fmt.Errorf("no process of group %d to read its peak memory from", pgid)
	}
	return peak, nil
}

// counts reads apiserver_request_total of the widgets resource, by verb, subresource and
// answer code.
func counts(ctx context.Context, client kubernetes.Interface) (map[string]float64, error) {
	raw, err := client.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	scanner := bufio.NewScanner(strings.NewReader(string(raw)))
	scanner.Buffer(make([]byte, 1<<20), 1<<20)
	for scanner.Scan() {
		line := scanner.Text()
		// The watches the API server closed itself because their client fell behind (its
		// watch cache's buffer for them was full): each one re-opened is one WATCH more.
		if strings.HasPrefix(line, "apiserver_terminated_watchers_total{") && strings.Contains(line, `widgets`) {
			var value float64
			fmt.Sscanf(strings.TrimSpace(line[strings.LastIndex(line, "}")+1:]), "%g", &value)
			out[terminatedWatches] += value
			continue
		}
		if !strings.HasPrefix(line, "apiserver_request_total{") || !strings.Contains(line, `resource="widgets"`) {
			continue
		}
		end := strings.LastIndex(line, "}")
		labels := map[string]string{}
		for _, pair := range strings.Split(line[len("apiserver_request_total{"):end], ",") {
			if k, v, ok := strings.Cut(pair, "="); ok {
				labels[k] = strings.Trim(v, `"`)
			}
		}
		var value float64
		fmt.Sscanf(strings.TrimSpace(line[end+1:]), "%g", &value)
		out[labels["verb"]+" "+labels["subresource"]+" "+labels["code"]] += value
	}
	return out, scanner.Err()
}

func delta(after, before map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for k, v := range after {
		if d := v - before[k]; d != 0 {
			out[k] = d
		}
	}
	return out
}

// statusWrites counts the status writes in d, whatever their answer.
func statusWrites(d map[string]float64) float64 {
	sum := 0.0
	for k, v := range d {
		for _, verb := range []string{"PUT status ", "PATCH status ", "APPLY status "} {
			if strings.HasPrefix(k, verb) {
				sum += v
			}
		}
	}
	return sum
}

// terminatedWatches is counts' key of the watches the API server closed (not requests).
const terminatedWatches = "WATCH terminated by the server"

// total sums the requests in d.
func total(d map[string]float64) float64 {
	sum := 0.0
	for k, v := range d {
		if k != terminatedWatches {
			sum += v
		}
	}
	return sum
}

func run() error {
	kubeconfig := flag.String("kubeconfig", "", "the API server's kubeconfig")
	n := flag.Int("n", 1000, "how many Widgets")
	name := flag.String("name", "controller", "the controller's name in the output")
	steady := flag.Duration("steady", 60*time.Second, "how long the steady phase lasts")
	bound := flag.Duration("bound", 30*time.Minute, "how long a phase may take before the run fails")
	logs := flag.String("logs", os.DevNull, "the controller's output goes here")
	crd := flag.String("install", "", "install this CRD (JSON) and wait until it is Established, then exit")
	flag.Parse()
	config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		return err
	}
	config.QPS, config.Burst = -1, 0
	var own atomic.Int64
	config.Wrap(func(next http.RoundTripper) http.RoundTripper { return counting{next, &own} })
	dyn := dynamic.NewForConfigOrDie(config)
	kube := kubernetes.NewForConfigOrDie(config)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if *crd != "" {
		return install(ctx, dyn, *crd)
	}
	command := flag.Args()
	if len(command) == 0 {
		return fmt.Errorf("no controller command")
	}

	namespace := fmt.Sprintf("bench-%s-%d", *name, time.Now().UnixNano())
	if _, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}, metav1.CreateOptions{}); err != nil {
		return err
	}
	api := dyn.Resource(widgets).Namespace(namespace)
	jobs := make(chan int)
	errs := make(chan error, *n)
	var wg sync.WaitGroup
	for w := 0; w < 32; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				widget := &unstructured.Unstructured{Object: map[string]interface{}{
					"apiVersion": "example.com/v1", "kind": "Widget",
					"metadata": map[string]interface{}{"name": fmt.Sprintf("widget-%05d", i)},
					"spec":     map[string]interface{}{"size": int64(1)},
				}}
				if _, err := api.Create(ctx, widget, metav1.CreateOptions{}); err != nil {
					errs <- err
				}
			}
		}()
	}
	for i := 0; i < *n; i++ {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	close(errs)
	for err := range errs {
		return err
	}
	t := &tracker{ready: map[string]bool{}, changed: make(chan struct{}, 1)}
	if err := follow(ctx, dyn, namespace, t, &own); err != nil {
		return err
	}

	before, err := counts(ctx, kube)
	if err != nil {
		return err
	}
	ownBefore := own.Load()
	out, err := os.Create(*logs)
	if err != nil {
		return err
	}
	defer out.Close()
	controller := exec.Command(command[0], command[1:]...)
	controller.Env = append(os.Environ(), "KUBECONFIG="+*kubeconfig)
	controller.Stdout, controller.Stderr = out, out
	// Its own process group, so that a wrapper's child (heaptrack's) is stopped with it.
	controller.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	start := time.Now()
	if err := controller.Start(); err != nil {
		return err
	}
	// A failed run leaves no controller behind.
	defer func() { _ = syscall.Kill(-controller.Process.Pid, syscall.SIGKILL) }()
	if err := t.waitAll(*n, *bound); err != nil {
		return err
	}
	converged := time.Since(start)
	afterCreate, err := counts(ctx, kube)
	if err != nil {
		return err
	}

	changes := *n / 10
	start = time.Now()
	jobs = make(chan int)
	errs = make(chan error, changes)
	for w := 0; w < 32; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				patch := []byte(`{"spec":{"size":2}}`)
				if _, err := api.Patch(ctx, fmt.Sprintf("widget-%05d", i*10), types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
					errs <- err
				}
			}
		}()
	}
	for i := 0; i < changes; i++ {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	close(errs)
	for err := range errs {
		return err
	}
	if err := t.waitAll(*n, *bound); err != nil {
		return err
	}
	changed := time.Since(start)
	afterChange, err := counts(ctx, kube)
	if err != nil {
		return err
	}

	time.Sleep(*steady)
	afterSteady, err := counts(ctx, kube)
	if err != nil {
		return err
	}
	ownDuring := own.Load() - ownBefore
	peak, err := groupPeakRSS(controller.Process.Pid)
	if err != nil {
		return err
	}
	if err := syscall.Kill(-controller.Process.Pid, syscall.SIGTERM); err != nil {
		return err
	}
	_ = controller.Wait()
	usage := controller.ProcessState.SysUsage().(*syscall.Rusage)
	// Its watches end as it exits; the server counts a watch when it ends.
	afterExit, err := counts(ctx, kube)
	if err != nil {
		return err
	}
	all := delta(afterExit, before)
	requests := total(all) - float64(ownDuring)
	cpu := time.Duration(usage.Utime.Nano() + usage.Stime.Nano())
	result := map[string]interface{}{
		"controller":                 *name,
		"objects":                    *n,
		"changed":                    changes,
		"ready_s":                    converged.Seconds(),
		"change_ready_s":             changed.Seconds(),
		"status_writes_initial":      statusWrites(delta(afterCreate, before)),
		"status_writes_change":       statusWrites(delta(afterChange, afterCreate)),
		"status_writes_steady":       statusWrites(delta(afterSteady, afterChange)),
		"status_writes":              statusWrites(all),
		"requests":                   requests,
		"requests_by_verb":           all,
		"driver_requests_subtracted": ownDuring,
		"steady_s":                   steady.Seconds(),
		"peak_rss_kib":               peak,
		"cpu_s":                      cpu.Seconds(),
	}
	line, err := json.Marshal(result)
	if err != nil {
		return err
	}
	fmt.Println(string(line))
	cancel()
	// No namespace controller runs beside the launcher's API server: a deleted namespace
	// keeps its objects, which the next controller (watching every namespace) would find.
	err = dyn.Resource(widgets).Namespace(namespace).DeleteCollection(context.Background(), metav1.DeleteOptions{}, metav1.ListOptions{})
	if err != nil {
		return err
	}
	return kube.CoreV1().Namespaces().Delete(context.Background(), namespace, metav1.DeleteOptions{})
}

// install creates the CRD in file (JSON) and waits until the server serves it.
func install(ctx context.Context, client dynamic.Interface, file string) error {
	raw, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	crd := &unstructured.Unstructured{}
	if err := crd.UnmarshalJSON(raw); err != nil {
		return err
	}
	crds := client.Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
	if _, err := crds.Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		return err
	}
	for {
		got, err := crds.Get(ctx, crd.GetName(), metav1.GetOptions{})
		if err != nil {
			return err
		}
		conditions, _, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
		for _, c := range conditions {
			m, _ := c.(map[string]interface{})
			if m["type"] == "Established" && m["status"] == "True" {
				return nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "driver:", err)
		os.Exit(1)
	}
}
