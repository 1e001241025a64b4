package report

// The tests run with every built-in system registered, as the command
// line does.
import _ "github.com/gridsched/gridsched/system/all"
