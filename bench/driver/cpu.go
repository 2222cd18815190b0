package main

import (
	"os"
	"strconv"
	"strings"
)

// clockTicks is USER_HZ, the unit of /proc CPU times (100 on Linux).
const clockTicks = 100

// processCPU is a process's user and system CPU seconds so far.
func processCPU(pid int) (float64, bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	// After "pid (comm)": state is field 3, utime 14 and stime 15.
	fields := strings.Fields(s[i+1:])
	if len(fields) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseFloat(fields[11], 64)
	stime, err2 := strconv.ParseFloat(fields[12], 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return (utime + stime) / clockTicks, true
}

// machineCPU is the aggregate line of /proc/stat: busy and total ticks.
type machineCPU struct{ busy, total float64 }

func readMachineCPU() machineCPU {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return machineCPU{}
	}
	line, _, _ := strings.Cut(string(data), "\n")
	fields := strings.Fields(line) // cpu user nice system idle iowait irq softirq steal ...
	var m machineCPU
	for i, f := range fields[1:] {
		v, _ := strconv.ParseFloat(f, 64)
		m.total += v
		if i != 3 && i != 4 { // idle, iowait
			m.busy += v
		}
	}
	return m
}

// busySince is the busy share of all CPUs between two readings.
func (m machineCPU) busySince(before machineCPU) float64 {
	if m.total <= before.total {
		return 0
	}
	return (m.busy - before.busy) / (m.total - before.total)
}
