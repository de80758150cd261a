package ftdcwindow

import (
	"strings"
	"testing"
)

func TestCheckFTDCFigures(t *testing.T) {
	if err := CheckFigures([]string{"disk writes", "inserts"}); err != nil {
		t.Error(err)
	}
	if err := CheckFigures(nil); err != nil {
		t.Error(err)
	}
	err := CheckFigures([]string{"inserts", "disk"})
	if err == nil || !strings.HasPrefix(err.Error(), `"disk" is not a figure; valid: operations, inserts`) {
		t.Errorf("an unknown figure: %v", err)
	}
}
