package acctest

import (
	"io"
	"net"
	"net/url"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"
)

// APIProxy stands between a test's provider and the real API server and
// can take the server away: Stop closes the listener and cuts every open
// connection (requests and watches fail as they do when kube-apiserver
// dies), Start listens again on the same address. It is a plain TCP relay,
// so TLS and authentication are the server's own; the server keeps running
// for the other tests, which is why outages are simulated here instead of
// by stopping kube-apiserver itself.
type APIProxy struct {
	t        testing.TB
	upstream string
	addr     string

	mu       sync.Mutex
	listener net.Listener
	conns    map[net.Conn]struct{}
}

// NewAPIProxy starts a proxy in front of the acceptance cluster and writes
// a kubeconfig that goes through it.
func NewAPIProxy(t testing.TB) (*APIProxy, string) {
	t.Helper()
	path := Kubeconfig(t)
	raw, err := clientcmd.LoadFromFile(path)
	if err != nil {
		t.Fatalf("loading %s: %v", path, err)
	}
	cluster := raw.Clusters[raw.Contexts[raw.CurrentContext].Cluster]
	server, err := url.Parse(cluster.Server)
	if err != nil {
		t.Fatalf("server %q: %v", cluster.Server, err)
	}
	p := &APIProxy{t: t, upstream: server.Host, conns: map[net.Conn]struct{}{}}
	p.listen("127.0.0.1:0")
	p.addr = p.listener.Addr().String()
	t.Cleanup(p.Stop)

	// The server certificate names 127.0.0.1 (the local cluster and kind
	// both serve there), so only the port changes.
	server.Host = p.addr
	cluster.Server = server.String()
	out := filepath.Join(t.TempDir(), "kubeconfig-via-proxy")
	if err := clientcmd.WriteToFile(*raw, out); err != nil {
		t.Fatalf("writing %s: %v", out, err)
	}
	return p, out
}

// Host is the proxy's https URL.
func (p *APIProxy) Host() string { return "https://" + p.addr }

// Stop makes the API server unreachable through the proxy.
func (p *APIProxy) Stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.listener != nil {
		_ = p.listener.Close()
		p.listener = nil
	}
	for c := range p.conns {
		_ = c.Close()
		delete(p.conns, c)
	}
}

// Start makes the API server reachable again, on the same address.
func (p *APIProxy) Start() {
	p.t.Helper()
	p.mu.Lock()
	running := p.listener != nil
	p.mu.Unlock()
	if !running {
		p.listen(p.addr)
	}
}

func (p *APIProxy) listen(addr string) {
	var l net.Listener
	var err error
	for i := 0; i < 50; i++ { // the old socket may linger for a moment
		if l, err = net.Listen("tcp", addr); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		p.t.Fatalf("proxy listening on %s: %v", addr, err)
	}
	p.mu.Lock()
	p.listener = l
	p.mu.Unlock()
	go p.accept(l)
}

func (p *APIProxy) accept(l net.Listener) {
	for {
		client, err := l.Accept()
		if err != nil {
			return
		}
		go p.relay(client)
	}
}

func (p *APIProxy) relay(client net.Conn) {
	server, err := net.Dial("tcp", p.upstream)
	if err != nil {
		_ = client.Close()
		return
	}
	if !p.track(client, server) {
		return
	}
	done := make(chan struct{}, 2)
	pipe := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		done <- struct{}{}
	}
	go pipe(server, client)
	go pipe(client, server)
	<-done
	_ = client.Close()
	_ = server.Close()
}

// track registers both ends, or closes them when the proxy was stopped
// while the connection was being set up.
func (p *APIProxy) track(conns ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.listener == nil {
		for _, c := range conns {
			_ = c.Close()
		}
		return false
	}
	for _, c := range conns {
		p.conns[c] = struct{}{}
	}
	return true
}
