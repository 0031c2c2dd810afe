package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
)

// etcd is the embedded etcd the API server stores into.
type etcd struct {
	server    *embed.Etcd
	clientURL string
}

// etcdFolder is where etcd keeps its data, in the launcher's folder.
const etcdFolder = "etcd"

// startEtcd starts etcd on the loopback addresses given with its data in dir/etcd, without
// fsync (the data is a test's: a restart of the launcher keeps it, a crash of the machine
// need not), and waits until it serves, or until ctx ends (then it is closed again and
// errStopped returned).
func startEtcd(ctx context.Context, dir string, ports *addresses) (*etcd, error) {
	clientURL := &url.URL{Scheme: "http", Host: ports.EtcdClient}
	peerURL := &url.URL{Scheme: "http", Host: ports.EtcdPeer}
	cfg := embed.NewConfig()
	cfg.Name = "kondition"
	cfg.Dir = filepath.Join(dir, etcdFolder)
	cfg.ListenClientUrls = []url.URL{*clientURL}
	cfg.AdvertiseClientUrls = []url.URL{*clientURL}
	cfg.ListenPeerUrls = []url.URL{*peerURL}
	cfg.AdvertisePeerUrls = []url.URL{*peerURL}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.UnsafeNoFsync = true
	cfg.LogLevel = "error"
	cfg.LogOutputs = []string{"stderr"}
	server, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, err
	}
	select {
	case <-server.Server.ReadyNotify():
	case err := <-server.Err():
		server.Close()
		return nil, err
	case <-ctx.Done():
		server.Close()
		return nil, errStopped
	case <-time.After(5 * time.Minute):
		server.Close()
		return nil, fmt.Errorf("not ready after 5 minutes")
	}
	return &etcd{server: server, clientURL: clientURL.String()}, nil
}

// compact compacts the key space at the current revision: every older revision is gone, so
// a watch that resumes from one reaching etcd gets 410 Gone from the API server, as after
// etcd's own periodic compaction (kinds the API server caches are answered from its watch
// cache first).
func (e *etcd) compact(ctx context.Context) (int64, error) {
	client, err := clientv3.New(clientv3.Config{Endpoints: []string{e.clientURL}, DialTimeout: time.Minute})
	if err != nil {
		return 0, err
	}
	defer client.Close()
	status, err := client.Status(ctx, e.clientURL)
	if err != nil {
		return 0, err
	}
	revision := status.Header.Revision
	// Nothing written since the last compaction: the current revision is the one compacted
	// at, and etcd refuses to compact there again. Every revision before it is gone, as
	// asked.
	_, err = client.Compact(ctx, revision, clientv3.WithCompactPhysical())
	if err != nil && !errors.Is(err, rpctypes.ErrCompacted) {
		return 0, err
	}
	return revision, nil
}

// Close stops etcd.
func (e *etcd) Close() {
	e.server.Close()
}
