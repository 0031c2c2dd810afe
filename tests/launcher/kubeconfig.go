package main

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
)

// writeKubeconfig writes a kubeconfig for the admin at server into dir and returns its path.
// Certificates are inline, so the file is all a client needs.
func writeKubeconfig(dir, server string, certs *pki) (string, error) {
	data := func(pem []byte) string { return base64.StdEncoding.EncodeToString(pem) }
	text := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: kondition
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: kondition-admin
  user:
    client-certificate-data: %s
    client-key-data: %s
contexts:
- name: kondition
  context:
    cluster: kondition
    user: kondition-admin
    namespace: default
current-context: kondition
`, server, data(certs.caPEM), data(certs.adminCertPEM), data(certs.adminKeyPEM))
	path := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		return "", err
	}
	return path, nil
}
