// Command kstatus answers, for each object it reads, what kstatus itself says of it, by the
// rules of one of two libraries, named by the first argument:
//
//   - flux: github.com/fluxcd/cli-utils, Flux's maintained fork of cli-utils, the one
//     Helm 4's --wait and Flux's controllers compute kstatus with;
//   - cli-utils: sigs.k8s.io/cli-utils, the upstream library.
//
// kondition's kstatus module follows the first by default and the second on request. Its
// tests send the objects they generate and compare every answer with their own
// (tests/tests/kstatus_differential.rs).
//
// Input: one JSON value per line on stdin, {"object": {...}, "pods": [{...}, ...]}: an
// object and the Pods a workload of it owns (empty for other kinds). Output: one JSON line
// per input, in order, with two answers:
//
//   - "compute": status.Compute of the object alone;
//   - "read": what the polling engine's default status reader says of the object, the
//     Pods given being what the cluster lists for its selector (a ReplicaSet's and a
//     StatefulSet's status also count their Pods there, and the two libraries differ on
//     which failed Pods count).
//
// Each answer is {"status": "...", "message": "..."}, or {"error": "..."} where kstatus
// refuses the object. kstatus reads the clock in one rule (a Pod unschedulable for less
// than 15 seconds since its creation is still in progress), so the objects' creation
// times are the caller's to place far from that boundary.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	fluxstatusreaders "github.com/fluxcd/cli-utils/pkg/kstatus/polling/statusreaders"
	fluxstatus "github.com/fluxcd/cli-utils/pkg/kstatus/status"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/cli-utils/pkg/kstatus/polling/statusreaders"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// input is one line read.
type input struct {
	Object json.RawMessage   `json:"object"`
	Pods   []json.RawMessage `json:"pods"`
}

// answer is one of the two answers for an object.
type answer struct {
	Status  string `json:"status,omitempty"`
	Message string `json:"message,omitempty"`
	Error   string `json:"error,omitempty"`
}

// answers is what is written for one object.
type answers struct {
	Compute answer `json:"compute"`
	Read    answer `json:"read"`
}

// library is the part of a kstatus library the program asks.
type library struct {
	compute func(*unstructured.Unstructured) answer
	read    func(context.Context, *pods, *unstructured.Unstructured) answer
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: kstatus-reference flux|cli-utils < objects")
		os.Exit(2)
	}
	lib, err := libraryNamed(os.Args[1])
	if err == nil {
		err = run(lib, os.Stdin, os.Stdout)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "kstatus: %v\n", err)
		os.Exit(1)
	}
}

func libraryNamed(name string) (library, error) {
	mapper := restMapper()
	switch name {
	case "flux":
		reader := fluxstatusreaders.NewDefaultStatusReader(mapper)
		return library{
			compute: func(u *unstructured.Unstructured) answer {
				result, err := fluxstatus.Compute(u)
				if err != nil {
					return answer{Error: err.Error()}
				}
				return answer{Status: result.Status.String(), Message: result.Message}
			},
			read: func(ctx context.Context, p *pods, u *unstructured.Unstructured) answer {
				result, err := reader.ReadStatusForObject(ctx, p, u)
				if err != nil {
					return answer{Error: err.Error()}
				}
				if result.Error != nil {
					return answer{Error: result.Error.Error()}
				}
				return answer{Status: result.Status.String(), Message: result.Message}
			},
		}, nil
	case "cli-utils":
		reader := statusreaders.NewDefaultStatusReader(mapper)
		return library{
			compute: func(u *unstructured.Unstructured) answer {
				result, err := status.Compute(u)
				if err != nil {
					return answer{Error: err.Error()}
				}
				return answer{Status: result.Status.String(), Message: result.Message}
			},
			read: func(ctx context.Context, p *pods, u *unstructured.Unstructured) answer {
				result, err := reader.ReadStatusForObject(ctx, p, u)
				if err != nil {
					return answer{Error: err.Error()}
				}
				if result.Error != nil {
					return answer{Error: result.Error.Error()}
				}
				return answer{Status: result.Status.String(), Message: result.Message}
			},
		}, nil
	}
	return library{}, fmt.Errorf("no kstatus library named %q (flux or cli-utils)", name)
}

// restMapper knows the kinds the status readers look up: the workloads and what they own.
func restMapper() meta.RESTMapper {
	mapper := meta.NewDefaultRESTMapper([]schema.GroupVersion{{Version: "v1"}, {Group: "apps", Version: "v1"}})
	for _, gvk := range []schema.GroupVersionKind{
		{Version: "v1", Kind: "Pod"},
		{Group: "apps", Version: "v1", Kind: "ReplicaSet"},
		{Group: "apps", Version: "v1", Kind: "Deployment"},
		{Group: "apps", Version: "v1", Kind: "StatefulSet"},
	} {
		mapper.Add(gvk, meta.RESTScopeNamespace)
	}
	return mapper
}

// pods is the cluster as the status readers see it: listing Pods gives the Pods given with
// the object (the caller's selection), listing anything else gives nothing.
type pods struct {
	items []unstructured.Unstructured
}

func (p *pods) Get(context.Context, client.ObjectKey, *unstructured.Unstructured) error {
	return fmt.Errorf("the reference reads no single object")
}

func (p *pods) ListNamespaceScoped(_ context.Context, list *unstructured.UnstructuredList, _ string, _ labels.Selector) error {
	if strings.TrimSuffix(list.GroupVersionKind().Kind, "List") == "Pod" {
		list.Items = append(list.Items, p.items...)
	}
	return nil
}

func (p *pods) ListClusterScoped(context.Context, *unstructured.UnstructuredList, labels.Selector) error {
	return nil
}

func (p *pods) Sync(context.Context) error {
	return nil
}

func run(lib library, in io.Reader, output io.Writer) error {
	scanner := bufio.NewScanner(in)
	// An object is one line, and generated objects stay small; 16 MiB leaves room.
	scanner.Buffer(make([]byte, 0, 1<<20), 16<<20)
	out := bufio.NewWriter(output)
	encoder := json.NewEncoder(out)
	ctx := context.Background()
	for scanner.Scan() {
		if err := encoder.Encode(answerLine(ctx, lib, scanner.Bytes())); err != nil {
			return err
		}
	}
	if err := scanner.Err(); err != nil {
		return err
	}
	return out.Flush()
}

// answerLine reads one line as the API machinery reads objects (numbers without a fraction as
// integers, which kstatus's int64 lookups need) and asks both questions.
func answerLine(ctx context.Context, lib library, line []byte) answers {
	var given input
	if err := json.Unmarshal(line, &given); err != nil {
		refused := answer{Error: "not an input line: " + err.Error()}
		return answers{Compute: refused, Read: refused}
	}
	var object unstructured.Unstructured
	if err := object.UnmarshalJSON(given.Object); err != nil {
		refused := answer{Error: "not an object: " + err.Error()}
		return answers{Compute: refused, Read: refused}
	}
	owned := &pods{}
	for _, raw := range given.Pods {
		var pod unstructured.Unstructured
		if err := pod.UnmarshalJSON(raw); err != nil {
			refused := answer{Error: "not a Pod: " + err.Error()}
			return answers{Compute: refused, Read: refused}
		}
		owned.items = append(owned.items, pod)
	}
	return answers{
		Compute: lib.compute(&object),
		Read:    lib.read(ctx, owned, &object),
	}
}
