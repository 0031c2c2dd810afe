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
// and answers each on stdout. When stdin closes (the test process ended, however it ended),
// it removes its files and exits, so nothing is left running.
//
// With -state DIR its files live in DIR (etcd's data, the certificates, the kubeconfig and
// the ports chosen) and stay there when it exits: a launcher started again with the same
// folder serves the same data on the same addresses with the same certificates, as an API
// server restarted in place does, and a client holding the old kubeconfig reconnects.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "launcher: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	state := flag.String("state", "", "a folder that keeps etcd's data, the certificates and the addresses between runs (default: a temporary folder, removed on exit)")
	flag.Parse()
	dir := *state
	if dir == "" {
		temporary, err := os.MkdirTemp("", "kondition-apiserver-")
		if err != nil {
			return err
		}
		// Every way out removes the folder: a normal return, a failed start, stdin closing.
		defer os.RemoveAll(temporary)
		dir = temporary
	} else if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}

	ports, err := loadOrPickAddresses(dir)
	if err != nil {
		return fmt.Errorf("addresses: %w", err)
	}
	store, err := startEtcd(dir, ports)
	if err != nil {
		return fmt.Errorf("etcd: %w", err)
	}
	defer store.Close()

	certs, err := loadOrNewPKI(dir)
	if err != nil {
		return fmt.Errorf("certificates: %w", err)
	}
	server, err := startAPIServer(dir, certs, store.clientURL, ports.APIServer)
	if err != nil {
		return fmt.Errorf("kube-apiserver: %w", err)
	}
	kubeconfig, err := writeKubeconfig(dir, server.url, certs)
	if err != nil {
		return err
	}
	if err := server.waitReady(certs); err != nil {
		return err
	}
	fmt.Printf("READY %s\n", kubeconfig)

	lines := readLines(os.Stdin)
	for {
		select {
		case err := <-server.exited:
			// It returns only when it fails, or after SIGTERM or SIGINT asked it to stop.
			if err != nil {
				return fmt.Errorf("kube-apiserver stopped: %w", err)
			}
			return nil
		case line, open := <-lines:
			if !open {
				return nil
			}
			fmt.Println(command(store, strings.TrimSpace(line)))
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

// readLines sends each line of input on the channel, which closes at the end of input.
func readLines(input io.Reader) <-chan string {
	lines := make(chan string)
	go func() {
		scanner := bufio.NewScanner(input)
		for scanner.Scan() {
			lines <- scanner.Text()
		}
		close(lines)
	}()
	return lines
}
