package emulator

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/airsql/airsql/internal/clock"
)

// Notification pings (webhooks §1.7): after a payload, a hook with a notification URL gets a POST
// of {"base":{"id"},"webhook":{"id"},"timestamp"}, compact, with X-Airtable-Content-MAC:
// hmac-sha256=<hex of HMAC-SHA256(macSecret, body)>. A ping answered other than 200/204 (or not
// at all within 25 s) is retried up to 13 times, waiting 10 s, 20 s, 40 s … on the server's clock;
// after the last failure notifications are turned off. Payloads arriving while a ping is under way
// give one more ping after it, not one each: pings are coalesced, as the service's may be.

const (
	pingTimeout    = 25 * time.Second
	pingRetries    = 13
	pingFirstDelay = 10 * time.Second
)

// WithNotificationClient sets the client that sends webhook pings (default: one with the
// service's 25 s timeout).
func WithNotificationClient(client *http.Client) Option {
	return func(c *config) error {
		if client == nil {
			return fmt.Errorf("emulator: WithNotificationClient(nil)")
		}
		c.pingClient = client
		return nil
	}
}

type pinger struct {
	client *http.Client
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func newPinger(client *http.Client) *pinger {
	if client == nil {
		client = &http.Client{Timeout: pingTimeout}
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &pinger{client: client, ctx: ctx, cancel: cancel}
}

// stopPings cancels the pings under way and waits for them.
func (s *Server) stopPings() {
	s.hooks.pings.cancel()
	s.hooks.pings.wg.Wait()
}

// schedulePingLocked starts a ping of h, or asks the one under way for another after it.
func (s *Server) schedulePingLocked(h *webhook) {
	if h.pingInFlight {
		h.pingPending = true
		return
	}
	if s.hooks.pings.ctx.Err() != nil {
		return // closing
	}
	h.pingInFlight = true
	s.hooks.pings.wg.Add(1)
	go s.deliverPings(h)
}

// PingBody is the body of a notification ping, compact and in this key order (webhooks §1.7).
func PingBody(baseID, webhookID string, at time.Time) []byte {
	return []byte(fmt.Sprintf(`{"base":{"id":%q},"webhook":{"id":%q},"timestamp":%q}`, baseID, webhookID, formatTime(at)))
}

// ContentMAC is the X-Airtable-Content-MAC header of a ping body signed with secret.
func ContentMAC(secret, body []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	return "hmac-sha256=" + hex.EncodeToString(m.Sum(nil))
}

func (s *Server) deliverPings(h *webhook) {
	p := s.hooks.pings
	defer p.wg.Done()
	for {
		s.mu.Lock()
		if s.hooks.byID[h.id] != h || !h.notifyOn {
			h.pingInFlight = false
			s.mu.Unlock()
			return
		}
		h.pingPending = false
		target, secret, baseID := h.notifyURL, h.macSecret, h.baseID
		s.mu.Unlock()

		body := PingBody(baseID, h.id, s.clock.Now())
		for retry := 0; ; retry++ {
			start := s.clock.Now()
			err := s.sendPing(p, target, body, ContentMAC(secret, body))
			end := s.clock.Now()
			result := map[string]any{"success": err == nil, "completionTimestamp": formatTime(end),
				"durationMs": float64(end.Sub(start).Microseconds()) / 1000, "retryNumber": retry}
			if err != nil {
				result["error"] = map[string]any{"message": err.Error()}
				result["willBeRetried"] = retry < pingRetries
			}
			s.mu.Lock()
			h.lastResult = result
			if err == nil {
				h.lastSuccess = end
				s.mu.Unlock()
				break
			}
			if retry == pingRetries || p.ctx.Err() != nil {
				if retry == pingRetries {
					h.notifyOn = false // delivery gave up; payloads keep accumulating
				}
				h.pingInFlight = false
				s.mu.Unlock()
				return
			}
			s.mu.Unlock()
			if clock.Sleep(p.ctx, s.clock, pingFirstDelay<<retry) != nil {
				s.mu.Lock()
				h.pingInFlight = false
				s.mu.Unlock()
				return
			}
		}
		s.mu.Lock()
		if !h.pingPending {
			h.pingInFlight = false
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
	}
}

// sendPing posts one ping; an error says why it failed, in the service's words for a status.
func (s *Server) sendPing(p *pinger, target string, body []byte, mac string) error {
	ctx, cancel := context.WithTimeout(p.ctx, pingTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Airtable-Content-MAC", mac)
	resp, err := p.client.Do(req)
	if err != nil {
		return fmt.Errorf("The HTTP request failed: %v", err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusNoContent {
		return fmt.Errorf("The HTTP request returned a %d status code instead of 200 or 204.", resp.StatusCode)
	}
	return nil
}
