package main

import (
	"context"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// countingProxy forwards plain HTTP on 127.0.0.1 to the API server with the
// admin credentials and counts every request by verb and resource, named as
// apiserver_request_total names them. Only the one terraform command pointed
// at it goes through it, so its counts are exactly the provider's, whatever
// else uses the shared cluster.
type countingProxy struct {
	server *http.Server
	url    string
	mu     sync.Mutex
	counts map[requestKey]float64
}

func startCountingProxy(kubeconfig string) (*countingProxy, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, err
	}
	transport, err := rest.TransportFor(cfg)
	if err != nil {
		return nil, err
	}
	upstream, err := url.Parse(cfg.Host)
	if err != nil {
		return nil, err
	}
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &countingProxy{url: "http://" + listener.Addr().String(), counts: map[requestKey]float64{}}
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(upstream)
			r.Out.Host = upstream.Host
		},
		Transport:     transport,
		FlushInterval: -1, // stream watches
	}
	p.server = &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			p.count(classify(r))
			rp.ServeHTTP(w, r)
		}),
		ReadHeaderTimeout: 10 * time.Second,
	}
	go func() { _ = p.server.Serve(listener) }()
	return p, nil
}

func (p *countingProxy) count(k requestKey) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.counts[k]++
}

// take returns the counts so far and starts again from zero.
func (p *countingProxy) take() map[requestKey]float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.counts
	p.counts = map[requestKey]float64{}
	return out
}

func (p *countingProxy) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = p.server.Shutdown(ctx)
}

// writeKubeconfig writes a kubeconfig that points at the proxy (no
// credentials: the proxy adds them).
func (p *countingProxy) writeKubeconfig(path string) error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["bench-proxy"] = &clientcmdapi.Cluster{Server: p.url}
	cfg.AuthInfos["bench-proxy"] = &clientcmdapi.AuthInfo{}
	cfg.Contexts["bench-proxy"] = &clientcmdapi.Context{Cluster: "bench-proxy", AuthInfo: "bench-proxy"}
	cfg.CurrentContext = "bench-proxy"
	return clientcmd.WriteToFile(*cfg, path)
}

// classify names a request the way the API server's metrics do: verb GET,
// LIST, WATCH, POST, PUT, PATCH, APPLY, DELETE or DELETECOLLECTION, and the
// resource with its subresource, or nonResource.
func classify(r *http.Request) requestKey {
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	var rest []string
	switch {
	case len(parts) >= 2 && parts[0] == "api":
		rest = parts[2:] // api/v1/...
	case len(parts) >= 3 && parts[0] == "apis":
		rest = parts[3:] // apis/group/version/...
	}
	if len(rest) >= 2 && rest[0] == "namespaces" && len(rest) > 2 {
		rest = rest[2:] // namespaces/<ns>/<resource>...
	}
	if len(rest) == 0 {
		return requestKey{Verb: r.Method, Resource: nonResource}
	}
	resource, named := rest[0], len(rest) >= 2
	if len(rest) >= 3 {
		resource += "/" + rest[2]
	}
	verb := r.Method
	switch r.Method {
	case http.MethodGet:
		switch {
		case r.URL.Query().Get("watch") == "true" || r.URL.Query().Get("watch") == "1":
			verb = "WATCH"
		case !named:
			verb = "LIST"
		}
	case http.MethodPatch:
		if strings.HasPrefix(r.Header.Get("Content-Type"), "application/apply-patch") {
			verb = "APPLY"
		}
	case http.MethodDelete:
		if !named {
			verb = "DELETECOLLECTION"
		}
	}
	return requestKey{Verb: verb, Resource: resource}
}
