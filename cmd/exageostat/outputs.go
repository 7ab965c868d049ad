package main

import (
	"github.com/exageostat/exageostat/pkg/job"
)

// checkOutputs checks the output files of cmd before its work starts
// (job.Outputs.Check): writable, none of them an input, no two the same.
func checkOutputs(cmd string, outs []job.File, ins ...job.File) error {
	return job.Outputs{Cmd: cmd, Outputs: outs, Inputs: ins}.Check()
}

// outName is how a message names the output path: "standard output" for -.
func outName(path string) string {
	if path == job.StdoutPath {
		return "standard output"
	}
	return path
}
