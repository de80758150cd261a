package connect

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestOptionsBoundEveryConnection(t *testing.T) {
	for _, s := range []Settings{{}, {AppName: "mongobench-telemetry"}, {Member: "db2:27017"}, {Poll: true, Pool: 8}} {
		o, err := Options("mongodb://u:pw@db1:27017/?tls=false", s)
		if err != nil {
			t.Fatal(err)
		}
		if o.ServerSelectionTimeout == nil || *o.ServerSelectionTimeout != Timeout || o.ConnectTimeout == nil || *o.ConnectTimeout != Timeout {
			t.Errorf("%+v: selection %v, connect %v, want %v each", s, o.ServerSelectionTimeout, o.ConnectTimeout, Timeout)
		}
		if want := max(s.Pool, 1); o.MaxPoolSize == nil || *o.MaxPoolSize != uint64(want) {
			t.Errorf("%+v: pool %v, want %d", s, o.MaxPoolSize, want)
		}
		if want := s.AppName; o.AppName == nil || (want != "" && *o.AppName != want) || (want == "" && *o.AppName != AppName) {
			t.Errorf("%+v: app name %v", s, o.AppName)
		}
		if o.Auth == nil || o.Auth.Username != "u" {
			t.Errorf("%+v: the credentials are lost: %+v", s, o.Auth)
		}
	}
}

func TestOptionsOfTheConnectionStringWin(t *testing.T) {
	o, err := Options("mongodb://db1/?serverSelectionTimeoutMS=1500&connectTimeoutMS=700", Settings{Member: "db2:27017"})
	if err != nil {
		t.Fatal(err)
	}
	if *o.ServerSelectionTimeout != 1500*time.Millisecond || *o.ConnectTimeout != 700*time.Millisecond {
		t.Errorf("selection %v, connect %v: want the connection string's 1.5s and 700ms", *o.ServerSelectionTimeout, *o.ConnectTimeout)
	}
	if len(o.Hosts) != 1 || o.Hosts[0] != "db2:27017" || o.Direct == nil || !*o.Direct {
		t.Errorf("a member's connection: hosts %v, direct %v; want db2:27017 directly", o.Hosts, o.Direct)
	}
}

func TestBadConnectionString(t *testing.T) {
	_, err := Open("mongodb://u:secretpw@db1/?maxPoolSize=x", Settings{})
	if !errors.Is(err, ErrBadURI) {
		t.Fatalf("got %v, want ErrBadURI", err)
	}
	if strings.Contains(err.Error(), "secretpw") {
		t.Errorf("the error shows the password: %v", err)
	}
}
