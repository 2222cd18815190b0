package dra

import (
	"testing"
	"time"
)

func TestExtendedResourceOwner(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		classes []ClassRef
		want    string
	}{
		{nil, ""},
		{[]ClassRef{{"gpu.nvidia.com", t0}}, "gpu.nvidia.com"},
		// The newest wins: a pool's class applied after the driver's chart.
		{[]ClassRef{{"gpu.nvidia.com", t0}, {"dra-h100.gpu.gpuform.io", t0.Add(time.Hour)}}, "dra-h100.gpu.gpuform.io"},
		{[]ClassRef{{"b.gpu.gpuform.io", t0.Add(time.Hour)}, {"a.gpu.gpuform.io", t0}}, "b.gpu.gpuform.io"},
		// Created together: the name sorted first.
		{[]ClassRef{{"b.gpu.gpuform.io", t0}, {"a.gpu.gpuform.io", t0}}, "a.gpu.gpuform.io"},
	}
	for _, c := range cases {
		if got := ExtendedResourceOwner(c.classes); got != c.want {
			t.Errorf("%v: owner %q, want %q", c.classes, got, c.want)
		}
	}
}
