// Command kstatus answers, for each object it reads, what kstatus itself says of it: the
// status and message of status.Compute from sigs.k8s.io/cli-utils, the library kondition's
// kstatus module follows. kondition's tests send it the objects they generate and compare
// every answer with their own (tests/tests/kstatus_differential.rs).
//
// Input: one JSON object per line on stdin. Output: one JSON line per object, in order:
// {"status": "...", "message": "..."}, or {"error": "..."} where Compute refuses the object.
// kstatus reads the clock in one rule (a Pod unschedulable for less than 15 seconds since
// its creation is still in progress), so the objects' creation times are the caller's to
// place far from that boundary.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
)

// answer is what is written for one object.
type answer struct {
	Status  string `json:"status,omitempty"`
	Message string `json:"message,omitempty"`
	Error   string `json:"error,omitempty"`
}

func main() {
	if err := run(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "kstatus: %v\n", err)
		os.Exit(1)
	}
}

func run(input io.Reader, output io.Writer) error {
	scanner := bufio.NewScanner(input)
	// An object is one line, and generated objects stay small; 16 MiB leaves room.
	scanner.Buffer(make([]byte, 0, 1<<20), 16<<20)
	out := bufio.NewWriter(output)
	encoder := json.NewEncoder(out)
	for scanner.Scan() {
		if err := encoder.Encode(compute(scanner.Bytes())); err != nil {
			return err
		}
	}
	if err := scanner.Err(); err != nil {
		return err
	}
	return out.Flush()
}

// compute reads one object as the API machinery does (numbers without a fraction as
// integers, which kstatus's int64 lookups need) and asks kstatus.
func compute(line []byte) answer {
	var object unstructured.Unstructured
	if err := object.UnmarshalJSON(line); err != nil {
		return answer{Error: "not an object: " + err.Error()}
	}
	result, err := status.Compute(&object)
	if err != nil {
		return answer{Error: err.Error()}
	}
	return answer{Status: result.Status.String(), Message: result.Message}
}
