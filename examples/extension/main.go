// Command mygridsched is gridsched with one more policy, largest-first:
// every command (simulate, run, slurm, report, policies) knows it.
package main

import "github.com/gridsched/gridsched/cli"

func main() {
	cli.Main(cli.Policy("largest-first", "the widest waiting job that fits starts first; no job waits for a wider one", NewLargestFirst))
}
