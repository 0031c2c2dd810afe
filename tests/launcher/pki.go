package main

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// pki holds the files of the launcher's own certificate authority: the API server's serving
// certificate, the client CA it trusts, the admin client certificate kube-rs presents and the
// service account key pair. Everything is made for the launcher's folder and lives in it; a
// launcher started again on a kept folder uses them again (loadOrNewPKI).
type pki struct {
	caCert, serverCert, serverKey string
	// The service account token signing key and its public half, which verifies tokens.
	serviceAccountKey, serviceAccountPub string
	// PEM text, for the kubeconfig.
	caPEM, adminCertPEM, adminKeyPEM []byte
}

// issued is a certificate and its key.
type issued struct {
	cert *x509.Certificate
	der  []byte
	key  *ecdsa.PrivateKey
}

// newPKI writes a CA, a serving certificate for 127.0.0.1 and localhost, an admin client
// certificate in system:masters and a service account signing key into dir.
func newPKI(dir string) (*pki, error) {
	ca, err := issue(nil, &x509.Certificate{
		Subject:               pkix.Name{CommonName: "kondition-test-ca"},
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	})
	if err != nil {
		return nil, err
	}
	server, err := issue(ca, &x509.Certificate{
		Subject:     pkix.Name{CommonName: "kube-apiserver"},
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:    []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"},
	})
	if err != nil {
		return nil, err
	}
	admin, err := issue(ca, &x509.Certificate{
		// The API server reads the user from CN and the groups from O; system:masters may
		// do anything, as a cluster admin's kubeconfig does.
		Subject:     pkix.Name{CommonName: "kondition-admin", Organization: []string{"system:masters"}},
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
	if err != nil {
		return nil, err
	}
	serviceAccount, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}

	p := files(dir)
	p.caPEM = certPEM(ca.der)
	p.adminCertPEM = certPEM(admin.der)
	if p.adminKeyPEM, err = keyPEM(admin.key); err != nil {
		return nil, err
	}
	serverKeyPEM, err := keyPEM(server.key)
	if err != nil {
		return nil, err
	}
	serviceAccountPEM, err := keyPEM(serviceAccount)
	if err != nil {
		return nil, err
	}
	serviceAccountPub, err := x509.MarshalPKIXPublicKey(serviceAccount.Public())
	if err != nil {
		return nil, err
	}
	for path, data := range map[string][]byte{
		adminCertFile(dir):  p.adminCertPEM,
		adminKeyFile(dir):   p.adminKeyPEM,
		p.caCert:            p.caPEM,
		p.serverCert:        certPEM(server.der),
		p.serverKey:         serverKeyPEM,
		p.serviceAccountKey: serviceAccountPEM,
		p.serviceAccountPub: pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: serviceAccountPub}),
	} {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// files names the PKI's files in dir.
func files(dir string) *pki {
	return &pki{
		caCert:            filepath.Join(dir, "ca.crt"),
		serverCert:        filepath.Join(dir, "apiserver.crt"),
		serverKey:         filepath.Join(dir, "apiserver.key"),
		serviceAccountKey: filepath.Join(dir, "service-account.key"),
		serviceAccountPub: filepath.Join(dir, "service-account.pub"),
	}
}

func adminCertFile(dir string) string { return filepath.Join(dir, "admin.crt") }
func adminKeyFile(dir string) string  { return filepath.Join(dir, "admin.key") }

// loadOrNewPKI reads the PKI a launcher wrote into dir before, or makes a new one: the
// certificate authority must stay the same across a restart, since clients trust it.
func loadOrNewPKI(dir string) (*pki, error) {
	p := files(dir)
	caPEM, err := os.ReadFile(p.caCert)
	if errors.Is(err, fs.ErrNotExist) {
		return newPKI(dir)
	}
	if err != nil {
		return nil, err
	}
	p.caPEM = caPEM
	if p.adminCertPEM, err = os.ReadFile(adminCertFile(dir)); err != nil {
		return nil, err
	}
	if p.adminKeyPEM, err = os.ReadFile(adminKeyFile(dir)); err != nil {
		return nil, err
	}
	return p, nil
}

// issue makes a key and signs template with parent's key (itself when parent is nil).
func issue(parent *issued, template *x509.Certificate) (*issued, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, err
	}
	template.SerialNumber = serial
	// A day back for clocks that disagree a little; long enough for any test run.
	template.NotBefore = time.Now().Add(-24 * time.Hour)
	template.NotAfter = time.Now().Add(7 * 24 * time.Hour)
	signerCert, signerKey := template, crypto.Signer(key)
	if parent != nil {
		signerCert, signerKey = parent.cert, parent.key
	}
	der, err := x509.CreateCertificate(rand.Reader, template, signerCert, key.Public(), signerKey)
	if err != nil {
		return nil, fmt.Errorf("certificate %q: %w", template.Subject.CommonName, err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &issued{cert: cert, der: der, key: key}, nil
}

func certPEM(der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// keyPEM writes a key as PKCS #8, which every TLS stack reads (rustls among them).
func keyPEM(key *ecdsa.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}
