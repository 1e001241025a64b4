// Command gridsched simulates job scheduling policies on clusters and
// grids. Run "gridsched --help" for the commands; package cli is the
// command line, for a gridsched of your own with your policies.
package main

import "github.com/gridsched/gridsched/cli"

func main() { cli.Main() }
