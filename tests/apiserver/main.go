// Command kondition-apiserver is the write path of the tests' fake cluster, done with the
// API server's own libraries: every write is merged by sigs.k8s.io/structured-merge-diff
// (server-side apply and update, with managed fields per manager) and validated against
// the CRD's OpenAPI v3 schema by kube-openapi's validator, as kube-apiserver does for a
// custom resource.
//
// It speaks one JSON message per line on stdin and stdout. The first message carries the
// CRD and the version served; each later one is a write, answered with the object to store
// or with the Status body the API server would send. Everything else a real API server
// does (storage, resourceVersion and its preconditions, watches, faults) stays in the Rust
// stand-in, which is the only caller.
//
// Build (Debian: golang-go, golang-k8s-sigs-structured-merge-diff-dev,
// golang-k8s-kube-openapi-dev):
//
//	GO111MODULE=off GOPATH=/usr/share/gocode go build -o <target>/kondition-apiserver ./tests/apiserver
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
)

// request is one message from the stand-in.
type request struct {
	// Op is "init", "apply" or "update".
	Op string `json:"op"`
	// CRD and Version (init): the CustomResourceDefinition and the version served.
	CRD     json.RawMessage `json:"crd,omitempty"`
	Version string          `json:"version,omitempty"`
	// Live is the stored object (null when creating).
	Live map[string]interface{} `json:"live,omitempty"`
	// Object is the apply configuration (apply) or the new object (update).
	Object map[string]interface{} `json:"object,omitempty"`
	// Manager is the fieldManager; Force is the apply's force flag.
	Manager string `json:"manager,omitempty"`
	Force   bool   `json:"force,omitempty"`
	// Subresource is "status" for writes to /status, "" for the main resource.
	Subresource string `json:"subresource,omitempty"`
	// Now is the time written into the acting manager's managedFields entry; the stand-in
	// passes it so that runs are reproducible.
	Now string `json:"now,omitempty"`
}

// response is the answer: Code 200 with the object to store (Changed says whether it
// differs from the live one, managed fields included), or an error code with a Status.
type response struct {
	Code    int                    `json:"code"`
	Object  map[string]interface{} `json:"object,omitempty"`
	Changed bool                   `json:"changed,omitempty"`
	Status  *status                `json:"status,omitempty"`
}

func main() {
	in := bufio.NewReader(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	encoder := json.NewEncoder(out)
	var server *server
	for {
		line, err := in.ReadBytes('\n')
		if len(line) == 0 && err != nil {
			return // The stand-in closed the pipe: its cluster is gone.
		}
		var answer response
		var req request
		if jsonErr := json.Unmarshal(line, &req); jsonErr != nil {
			answer = failure(400, "BadRequest", "the request is not JSON: "+jsonErr.Error())
		} else if req.Op == "init" {
			server, err = newServer(req.CRD, req.Version)
			if err != nil {
				answer = failure(500, "InternalError", err.Error())
			} else {
				answer = response{Code: 200}
			}
		} else if server == nil {
			answer = failure(500, "InternalError", "no CRD yet: the first message must be init")
		} else {
			answer = server.write(&req)
		}
		if err := encoder.Encode(&answer); err != nil {
			fmt.Fprintln(os.Stderr, "kondition-apiserver:", err)
			os.Exit(1)
		}
		if err := out.Flush(); err != nil {
			os.Exit(1)
		}
	}
}
