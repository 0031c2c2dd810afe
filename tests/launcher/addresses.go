package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// addresses are the loopback host:port pairs the launcher serves on. They are kept in the
// state folder so that a launcher started again on it binds the same ones: a client's
// kubeconfig names the API server's, and etcd's data names its peer address.
type addresses struct {
	APIServer  string `json:"apiServer"`
	EtcdClient string `json:"etcdClient"`
	EtcdPeer   string `json:"etcdPeer"`
}

// loadOrPickAddresses reads dir/addresses.json, or picks three free ports and writes them
// there; fresh says they were picked now.
func loadOrPickAddresses(dir string) (ports *addresses, fresh bool, err error) {
	path := filepath.Join(dir, addressesFile)
	data, err := os.ReadFile(path)
	if err == nil {
		var kept addresses
		if err := json.Unmarshal(data, &kept); err != nil {
			return nil, false, fmt.Errorf("%s: %w", path, err)
		}
		return &kept, false, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, false, err
	}
	picked, err := pickAddresses()
	if err != nil {
		return nil, false, err
	}
	data, err = json.Marshal(picked)
	if err != nil {
		return nil, false, err
	}
	return picked, true, os.WriteFile(path, data, 0o600)
}

// addressesFile is where a state folder keeps its addresses.
const addressesFile = "addresses.json"

// pickAddresses picks three free loopback ports, holding each until all three are picked so
// that they differ. They are picked below the kernel's ephemeral range when it can be read:
// the source port of every outgoing connection on the machine (etcd's own gateway dialling
// its client port, kube-apiserver dialling etcd, any other process) comes from that range,
// so a port picked there and released until the server binds it may be taken by one. A port
// may still be taken in between by another process that binds one below (see portTaken).
func pickAddresses() (*addresses, error) {
	below := ephemeralLow()
	picked := &addresses{}
	for _, address := range []*string{&picked.APIServer, &picked.EtcdClient, &picked.EtcdPeer} {
		listener, err := listenBelow(below)
		if err != nil {
			return nil, err
		}
		defer listener.Close()
		*address = listener.Addr().String()
	}
	return picked, nil
}

// lowestPort is the lowest port picked: ports below are often those of services.
const lowestPort = 10000

// listenBelow listens on a random free loopback port from lowestPort up to below, or on
// one the kernel picks when there is no such range or none of a hundred tries is free.
func listenBelow(below int) (net.Listener, error) {
	for try := 0; below > lowestPort && try < 100; try++ {
		port := lowestPort + rand.IntN(below-lowestPort)
		if listener, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port))); err == nil {
			return listener, nil
		}
	}
	return net.Listen("tcp", "127.0.0.1:0")
}

// ephemeralLow is the lowest port of the kernel's ephemeral range (Linux), or 0 when it
// cannot be read.
func ephemeralLow() int {
	data, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 0
	}
	fields := strings.Fields(string(data))
	if len(fields) != 2 {
		return 0
	}
	low, err := strconv.Atoi(fields[0])
	if err != nil {
		return 0
	}
	return low
}

// forgetAddresses removes what names the addresses in dir (addresses.json, and etcd's data,
// whose member records its peer address), so that a launcher started again on dir picks
// other ones.
func forgetAddresses(dir string) error {
	if err := os.Remove(filepath.Join(dir, addressesFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return os.RemoveAll(filepath.Join(dir, etcdFolder))
}

// exitPortTaken is the launcher's exit status when a server could not bind its port because
// another process holds it (EX_TEMPFAIL): the harness starts the launcher again, which picks
// other ports unless its state folder keeps them.
const exitPortTaken = 75

// portTaken says whether err comes from binding an address another process holds.
// kube-apiserver formats its listener's error with %v, which drops the error's chain: its
// text is all there is to read.
func portTaken(err error) bool {
	return errors.Is(err, syscall.EADDRINUSE) || strings.Contains(err.Error(), "address already in use")
}
