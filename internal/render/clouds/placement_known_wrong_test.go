package clouds_test

// knownWrong lists the matrix cells ("cloud | pool | intent") and plan
// verdicts ("cloud | plan | intent") that are wrong today because of a
// known, not yet fixed finding, mapped to its issue #12 finding number.
// TestPlacementMatrix prints them as KNOWN WRONG instead of failing;
// TestPlacementKnownWrongStillWrong fails once one of them is right, so
// whoever fixes a finding deletes its entries (and regenerates the goldens
// with -update).
//
// It is empty: every cell is right. The findings it once held (1, 2, 3, 5
// and 10, the last found by the matrix itself) are fixed, and each fix is
// described in CHANGELOG.md. A new cloud or pool shape that shows WRONG
// cells is fixed before it lands; list cells here only while a fix is in
// review, never to make the matrix pass.
var knownWrong = map[string]int{}
