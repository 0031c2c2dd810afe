package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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
// there.
func loadOrPickAddresses(dir string) (*addresses, error) {
	path := filepath.Join(dir, "addresses.json")
	data, err := os.ReadFile(path)
	if err == nil {
		var kept addresses
		if err := json.Unmarshal(data, &kept); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return &kept, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	picked := &addresses{}
	for _, address := range []*string{&picked.APIServer, &picked.EtcdClient, &picked.EtcdPeer} {
		if *address, err = freeAddress(); err != nil {
			return nil, err
		}
	}
	data, err = json.Marshal(picked)
	if err != nil {
		return nil, err
	}
	return picked, os.WriteFile(path, data, 0o600)
}
