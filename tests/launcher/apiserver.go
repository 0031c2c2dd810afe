package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"k8s.io/kubernetes/cmd/kube-apiserver/app"
)

// apiServer is kube-apiserver running in this process.
type apiServer struct {
	url string
	// Receives what the command returned, if it ever returns.
	exited chan error
}

// serverOptions are what a test may choose of kube-apiserver's flags.
type serverOptions struct {
	// featureGates is passed as --feature-gates when not empty.
	featureGates string
	// auditLog, when not empty, is the file audit events of changing requests go to.
	auditLog string
}

// auditPolicy records every request that changes something, at the Metadata level (no
// bodies: the verb, the object, the answer's code and the user agent are what tests read),
// once its answer is sent.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived", "ResponseStarted", "Panic"]
rules:
- level: Metadata
  verbs: ["create", "update", "patch", "delete", "deletecollection"]
- level: None
`

// startAPIServer runs kube-apiserver's own command with the flags a minimal control plane
// needs: loopback only, the launcher's certificates, client certificates for authentication,
// RBAC (the admin is in system:masters), etcd at etcdURL; and those options asks for.
func startAPIServer(dir string, certs *pki, etcdURL, address string, options serverOptions) (*apiServer, error) {
	_, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	args, err := options.args(dir)
	if err != nil {
		return nil, err
	}
	command := app.NewAPIServerCommand()
	command.SetArgs(append([]string{
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--secure-port=" + port,
		"--cert-dir=" + filepath.Join(dir, "certs"),
		"--tls-cert-file=" + certs.serverCert,
		"--tls-private-key-file=" + certs.serverKey,
		"--client-ca-file=" + certs.caCert,
		"--etcd-servers=" + etcdURL,
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + certs.serviceAccountPub,
		"--service-account-signing-key-file=" + certs.serviceAccountKey,
		"--service-cluster-ip-range=10.0.0.0/24",
		"--authorization-mode=RBAC",
		// No controller manager makes service accounts: pods may be created without one.
		"--disable-admission-plugins=ServiceAccount",
		"--profiling=false",
		// How long a request other than a watch may run before the server answers 504 (60 s by
		// default). The tests' throttled identities (tests/src/identity.rs) are throttled by a
		// request of theirs that holds their priority level's only seat while its body never
		// ends: the throttle lasts as long as that request, so longer than any test runs.
		"--request-timeout=30m",
		// The kubernetes Service's endpoints would name the advertised address, which may
		// not be loopback; nothing here reaches the API server through that Service.
		"--endpoint-reconciler-type=none",
	}, args...))
	command.SetOut(os.Stderr)
	server := &apiServer{url: "https://" + address, exited: make(chan error, 1)}
	go func() { server.exited <- command.Execute() }()
	return server, nil
}

// args are the flags of options, with the audit policy written into dir.
func (options serverOptions) args(dir string) ([]string, error) {
	var args []string
	if options.featureGates != "" {
		args = append(args, "--feature-gates="+options.featureGates)
	}
	if options.auditLog != "" {
		policy := filepath.Join(dir, "audit-policy.yaml")
		if err := os.WriteFile(policy, []byte(auditPolicy), 0o600); err != nil {
			return nil, err
		}
		args = append(args,
			"--audit-policy-file="+policy,
			"--audit-log-path="+options.auditLog,
			"--audit-log-format=json",
			// Written as the requests are answered, not batched: a test reads the file as
			// soon as its writes are answered.
			"--audit-log-mode=blocking",
			"--audit-log-maxsize=0",
		)
	}
	return args, nil
}

// waitReady polls /readyz as the admin until it answers 200 (every post-start hook done: RBAC
// bootstrapped, the CRD controllers running), or fails when the server stops first. It
// returns errStopped as soon as ctx ends.
func (s *apiServer) waitReady(ctx context.Context, certs *pki) error {
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(certs.caPEM)
	admin, err := tls.X509KeyPair(certs.adminCertPEM, certs.adminKeyPEM)
	if err != nil {
		return err
	}
	client := &http.Client{
		Timeout: 10 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{
			RootCAs:      roots,
			Certificates: []tls.Certificate{admin},
		}},
	}
	// Generous: a cold start on a loaded 2-core machine takes several times the usual.
	deadline := time.Now().Add(5 * time.Minute)
	last := "no answer yet"
	for time.Now().Before(deadline) {
		select {
		case err := <-s.exited:
			return fmt.Errorf("kube-apiserver stopped before it was ready: %w", err)
		case <-ctx.Done():
			return errStopped
		case <-time.After(100 * time.Millisecond):
		}
		request, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url+"/readyz", nil)
		if err != nil {
			return err
		}
		response, err := client.Do(request)
		if err != nil {
			last = err.Error()
			continue
		}
		response.Body.Close()
		if response.StatusCode == http.StatusOK {
			return nil
		}
		last = response.Status
	}
	return fmt.Errorf("kube-apiserver not ready after 5 minutes (last /readyz: %s)", last)
}
