// Command launcher runs the real Kubernetes API server for kondition's tests: kube-apiserver
// (k8s.io/kubernetes, run through its own command and flags) with etcd embedded in the same
// process, both on loopback, with a certificate authority of its own.
//
// It prints `READY <kubeconfig>` on stdout once /readyz answers, then reads commands from
// stdin, one per line:
//
//	compact    compacts etcd at its current revision (watches from before then get 410 Gone,
//	           where the API server's watch cache does not answer them first)
//
// and answers each on stdout. A command sent before READY waits for it.
//
// It stops, removing its files, when stdin closes (the test process ended, however it ended)
// or on SIGTERM or SIGINT, at any point: while etcd or kube-apiserver are still starting as
// well as after READY. Stdin is watched from the start, so a test process that dies before
// READY leaves neither a launcher nor its etcd folder behind.
//
// With -feature-gates GATES kube-apiserver runs with those gates (its own flag's syntax,
// `ShardedListAndWatch=true,...`); with -audit-log FILE it writes an audit event for every
// request that changes something (create, update, patch, delete: the verb, the object, the
// answer's code and the client's user agent) to FILE, one JSON object per line, so that a
// test attributes writes to the replica that sent them as the server saw them.
//
// With -state DIR its files live in DIR (etcd's data, the certificates, the kubeconfig and
// the ports chosen) and stay there when it exits: a launcher started again with the same
// folder serves the same data on the same addresses with the same certificates, as an API
// server restarted in place does, and a client holding the old kubeconfig reconnects.
//
// It picks its ports free, but another process may take one before etcd or kube-apiserver
// binds it: it then exits with status 75 (EX_TEMPFAIL), having forgotten the ports it had
// just picked (a state folder kept from an earlier run keeps its own), so that the harness
// starts it again on other ports.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "launcher: %v\n", err)
		if portTaken(err) {
			os.Exit(exitPortTaken)
		}
		os.Exit(1)
	}
}

// errStopped says that the launcher was asked to stop (stdin closed, or a signal) before it
// was ready: not a failure.
var errStopped = errors.New("stopped before ready")

func run() error {
	state := flag.String("state", "", "a folder that keeps etcd's data, the certificates and the addresses between runs (default: a temporary folder, removed on exit)")
	var options serverOptions
	flag.StringVar(&options.featureGates, "feature-gates", "", "kube-apiserver's --feature-gates (for example ShardedListAndWatch=true)")
	flag.StringVar(&options.auditLog, "audit-log", "", "a file to write an audit event to for every request that changes an object (one JSON object per line)")
	flag.Parse()

	// Before anything starts: the ways to be told to stop. kube-apiserver adds its own
	// handler of SIGTERM and SIGINT when its command is made, which starts its graceful
	// shutdown; this one removes the state and exits, whichever comes first.
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	// A write to a closed stdout (the test process is gone) fails with EPIPE instead of
	// killing the launcher before it removes its files.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	lines, closed := readLines(os.Stdin)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var reason string
	go func() {
		select {
		case <-closed:
			reason = "stdin closed"
		case got := <-signals:
			reason = got.String()
		}
		stop()
	}()

	dir := *state
	if dir == "" {
		temporary, err := os.MkdirTemp("", "kondition-apiserver-")
		if err != nil {
			return err
		}
		// Every way out removes the folder: a normal return, a failed start, stdin closing, a
		// signal. It runs last, after etcd is closed.
		defer os.RemoveAll(temporary)
		dir = temporary
	} else if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}

	err := serve(ctx, dir, options, lines)
	if ctx.Err() != nil {
		fmt.Fprintf(os.Stderr, "launcher: stopping (%s)\n", reason)
		return nil
	}
	return err
}

// serve starts etcd and kube-apiserver with their files in dir, prints READY, and runs the
// commands of lines until ctx ends (stdin closed, or a signal) or kube-apiserver stops. Every
// step of the start gives up as soon as ctx ends.
func serve(ctx context.Context, dir string, options serverOptions, lines <-chan string) (err error) {
	ports, fresh, err := loadOrPickAddresses(dir)
	if err != nil {
		return fmt.Errorf("addresses: %w", err)
	}
	ready := false
	// Deferred first, so it runs last: after etcd is closed.
	defer func() {
		if fresh && !ready && err != nil && portTaken(err) {
			if forgetErr := forgetAddresses(dir); forgetErr != nil {
				err = fmt.Errorf("%w (and its addresses are kept: %v)", err, forgetErr)
			}
		}
	}()
	store, err := startEtcd(ctx, dir, ports)
	if err != nil {
		return fmt.Errorf("etcd: %w", err)
	}
	defer store.Close()

	certs, err := loadOrNewPKI(dir)
	if err != nil {
		return fmt.Errorf("certificates: %w", err)
	}
	if ctx.Err() != nil {
		return errStopped
	}
	server, err := startAPIServer(dir, certs, store.clientURL, ports.APIServer, options)
	if err != nil {
		return fmt.Errorf("kube-apiserver: %w", err)
	}
	kubeconfig, err := writeKubeconfig(dir, server.url, certs)
	if err != nil {
		return err
	}
	if err := server.waitReady(ctx, certs); err != nil {
		return err
	}
	ready = true
	if _, err := fmt.Printf("READY %s\n", kubeconfig); err != nil {
		return fmt.Errorf("stdout: %w", err)
	}

	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-server.exited:
			// It returns only when it fails, or after SIGTERM or SIGINT asked it to stop.
			if err != nil {
				return fmt.Errorf("kube-apiserver stopped: %w", err)
			}
			return nil
		case line := <-lines:
			if _, err := fmt.Println(command(store, strings.TrimSpace(line))); err != nil {
				return fmt.Errorf("stdout: %w", err)
			}
		}
	}
}

// command runs one line read from stdin and says what came of it.
func command(store *etcd, line string) string {
	switch line {
	case "compact":
		revision, err := store.compact(context.Background())
		if err != nil {
			return fmt.Sprintf("ERROR compact: %v", err)
		}
		return fmt.Sprintf("COMPACTED %d", revision)
	default:
		return fmt.Sprintf("ERROR unknown command %q (known: compact)", line)
	}
}

// readLines sends each line of input on lines, and closes closed at the end of input (after
// the last line was taken). Lines are buffered, so the end of input is seen even while no one
// takes them (before READY).
func readLines(input io.Reader) (lines <-chan string, closed <-chan struct{}) {
	out := make(chan string, 64)
	end := make(chan struct{})
	go func() {
		scanner := bufio.NewScanner(input)
		for scanner.Scan() {
			out <- scanner.Text()
		}
		close(end)
	}()
	return out, end
}
