package main

import (
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

func TestParseRequests(t *testing.T) {
	text := `# HELP apiserver_request_total [STABLE] Counter of apiserver requests
apiserver_request_total{code="200",component="apiserver",dry_run="",group="apps",resource="deployments",scope="resource",subresource="",verb="GET",version="v1"} 40
apiserver_request_total{code="404",component="apiserver",dry_run="",group="apps",resource="deployments",scope="resource",subresource="",verb="GET",version="v1"} 2
apiserver_request_total{code="200",component="apiserver",dry_run="",group="apps",resource="deployments",scope="resource",subresource="status",verb="PUT",version="v1"} 7
apiserver_request_total{code="200",component="",dry_run="",group="",resource="",scope="",subresource="/version",verb="GET",version=""} 3
apiserver_request_duration_seconds_count{verb="GET"} 99
`
	got := parseRequests(text)
	want := map[requestKey]float64{
		{"GET", "deployments"}:        42,
		{"PUT", "deployments/status"}: 7,
		{"GET", nonResource}:          3,
	}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	if !touchedByProvider("deployments/status") || touchedByProvider("leases") || !touchedByProvider(nonResource) {
		t.Error("touchedByProvider")
	}
}

func TestParseGoBench(t *testing.T) {
	out := `goos: linux
BenchmarkRenderDeploymentSkipManifest-2   	   75184	     15956 ns/op	   13410 B/op	     158 allocs/op
BenchmarkGenerateValues/flyte-core-2      	   41418	     31204 ns/op	   13457 B/op	     176 allocs/op
PASS
`
	got := parseGoBench(strings.NewReader(out))
	if len(got) != 2 || got[0].Name != "BenchmarkRenderDeploymentSkipManifest" || got[0].NsPerOp != 15956 ||
		got[1].Name != "BenchmarkGenerateValues/flyte-core" || got[1].AllocsPerOp != 176 || got[1].BytesPerOp != 13457 {
		t.Fatalf("got %+v", got)
	}
}

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{5, 1, 3}, 3}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := median(c.in); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestOrderAlternates(t *testing.T) {
	all, err := parseSubjects("")
	if err != nil {
		t.Fatal(err)
	}
	for _, peer := range []bool{false, true} {
		a, b := order(1, all, peer), order(2, all, peer)
		if last := len(a) - 1; len(a) != len(b) || a[0] != b[last] || a[last] != b[0] || a[0] != subjectGPU {
			t.Fatalf("order(1, %v) = %v, order(2, %v) = %v", peer, a, peer, b)
		}
		if slices.Contains(a, subjectPeer) != peer || a[1] != subjectDRA || slices.Contains(a, subjectGo) {
			t.Fatalf("order(1, %v) = %v", peer, a)
		}
	}
	if got := order(1, []string{subjectData, subjectGPU}, true); !slices.Equal(got, []string{subjectGPU, subjectData}) {
		t.Fatalf("order of gpu and data = %v", got)
	}
}

func TestParseSubjects(t *testing.T) {
	got, err := parseSubjects("data, dra gpu dra")
	if err != nil || !slices.Equal(got, []string{subjectData, subjectDRA, subjectGPU}) {
		t.Fatalf("parseSubjects = %v, %v", got, err)
	}
	if all, err := parseSubjects("all"); err != nil || len(all) != len(subjectNames) {
		t.Fatalf("parseSubjects(all) = %v, %v", all, err)
	}
	if _, err := parseSubjects("gpu scale"); err == nil {
		t.Fatal("an unknown subject was accepted")
	}
}

func TestClassify(t *testing.T) {
	for _, c := range []struct {
		method, url, contentType string
		want                     requestKey
	}{
		{"GET", "/apis/apps/v1/namespaces/ns/deployments/gpu-000", "", requestKey{"GET", "deployments"}},
		{"GET", "/apis/apps/v1/namespaces/ns/deployments?labelSelector=a%3Db", "", requestKey{"LIST", "deployments"}},
		{"GET", "/apis/apps/v1/namespaces/ns/deployments?watch=true&sendInitialEvents=true", "", requestKey{"WATCH", "deployments"}},
		{"PATCH", "/apis/apps/v1/namespaces/ns/deployments/gpu-000", "application/apply-patch+yaml", requestKey{"APPLY", "deployments"}},
		{"PATCH", "/apis/apps/v1/namespaces/ns/deployments/gpu-000", "application/merge-patch+json", requestKey{"PATCH", "deployments"}},
		{"DELETE", "/api/v1/namespaces/ns/pods", "", requestKey{"DELETECOLLECTION", "pods"}},
		{"PUT", "/apis/apps/v1/namespaces/ns/deployments/gpu-000/status", "", requestKey{"PUT", "deployments/status"}},
		{"GET", "/api/v1/nodes", "", requestKey{"LIST", "nodes"}},
		{"GET", "/api/v1/namespaces/ns", "", requestKey{"GET", "namespaces"}},
		{"GET", "/version", "", requestKey{"GET", nonResource}},
		{"GET", "/apis/apps/v1", "", requestKey{"GET", nonResource}},
	} {
		r := httptest.NewRequest(c.method, c.url, nil)
		if c.contentType != "" {
			r.Header.Set("Content-Type", c.contentType)
		}
		if got := classify(r); got != c.want {
			t.Errorf("%s %s = %v, want %v", c.method, c.url, got, c.want)
		}
	}
}
