package emulator

import (
	"fmt"
	"math"
	"testing"
)

// sortOrderFixture: R = {A} / {B} is -Infinity, Infinity or NaN where B is 0, an error where A is 99,
// and an ordinary number elsewhere; the specials sit between the ordinary numbers in creation order.
const sortOrderFixture = `{"bases":[{"id":"appSORTORDER00001","name":"Sort","tables":[
 {"id":"tblSORT0000000001","name":"T","fields":[
  {"name":"Name","type":"singleLineText"},
  {"name":"A","type":"number","options":{"precision":0}},
  {"name":"B","type":"number","options":{"precision":0}},
  {"name":"R","type":"formula","options":{"formula":"IF({A} = 99, ERROR(), {A} / {B})","result":{"type":"number","options":{"precision":2}}}}
 ],"records":[
  {"fields":{"Name":"five","A":5,"B":1}},
  {"fields":{"Name":"nan","A":0,"B":0}},
  {"fields":{"Name":"one","A":1,"B":1}},
  {"fields":{"Name":"inf","A":1,"B":0}},
  {"fields":{"Name":"three","A":3,"B":1}},
  {"fields":{"Name":"err","A":99,"B":1}},
  {"fields":{"Name":"minus two","A":-2,"B":1}},
  {"fields":{"Name":"-inf","A":-1,"B":0}},
  {"fields":{"Name":"four","A":4,"B":1}},
  {"fields":{"Name":"nan2","A":0,"B":0}},
  {"fields":{"Name":"two","A":2,"B":1}}
 ]}]}]}`

// TestSortSpecialValues: NaN, Infinity and errors of a formula sort in one total order (README,
// "Choices"), and the ordinary numbers between them come out sorted.
func TestSortSpecialValues(t *testing.T) {
	f, err := ParseFixture([]byte(sortOrderFixture))
	if err != nil {
		t.Fatal(err)
	}
	s, _ := newTestServer(t, WithFixture(f))
	const path = "/v0/appSORTORDER00001/T?sort%5B0%5D%5Bfield%5D=R"
	want := "[-inf minus two one two three four five inf nan nan2 err]"
	if got := fmt.Sprint(names(t, do(t, s, DefaultToken, "GET", path, nil))); got != want {
		t.Errorf("ascending: got %s, want %s", got, want)
	}
	want = "[err nan nan2 inf five four three two one minus two -inf]"
	if got := fmt.Sprint(names(t, do(t, s, DefaultToken, "GET", path+"&sort%5B0%5D%5Bdirection%5D=desc", nil))); got != want {
		t.Errorf("descending: got %s, want %s", got, want)
	}
}

// TestCompareSortValuesTotal checks the order's laws over values of every kind: antisymmetric,
// transitive, and NaN equal only to itself.
func TestCompareSortValuesTotal(t *testing.T) {
	vals := []any{nil, math.Inf(-1), -1.5, 0.0, 2.0, math.Inf(1), math.NaN(), "#ERROR!", "a", "B", "b"}
	for _, a := range vals {
		if c := compareSortValues(a, a); c != 0 {
			t.Errorf("compare(%v, %v) = %d, want 0", a, a, c)
		}
		for _, b := range vals {
			if ab, ba := compareSortValues(a, b), compareSortValues(b, a); ab != -ba {
				t.Errorf("compare(%v, %v) = %d but compare(%v, %v) = %d", a, b, ab, b, a, ba)
			}
			for _, c := range vals {
				if compareSortValues(a, b) <= 0 && compareSortValues(b, c) <= 0 && compareSortValues(a, c) > 0 {
					t.Errorf("not transitive: %v <= %v <= %v but %v > %v", a, b, c, a, c)
				}
			}
		}
	}
}
