"""The verifiers against the worked examples of libs/webhook-signing/README.md (python3 -m unittest)."""

import unittest
from email.message import Message

from integrator import AnswerOrder, deduplication_key, verify_hmac, verify_standard_webhook, webhook_id_problem

SECRET = "example-secret-do-not-use"
NEW_SECRET = "example-secret-2-do-not-use"
BODY = b'{"eventId":"7d1f5a9e-2b3c-4d5e-8f90-1a2b3c4d5e6f","offerId":"0b9e3c1a-5d7f-4e2a-9c8b-6a5f4e3d2c1b","workerId":"3b9c7e1e-7d3f-4c52-a0de-5f7b3a9f1c20","response":"applied","respondedAt":"2026-11-22T10:55:02.000Z"}'
PATH = "/hooks/v1/offer/response"
SIGNED_AT = 1795344903  # 2026-11-22T10:55:03Z
HMAC_OLD = "hmac f1f78e20202debd8bdfeaa3ccfbad458c7052cb35f2f3479073c1e6ac7b84207"
HMAC_NEW = "hmac 776f98876d64f64de2f552fb455c45f465b7c09e213e23bc064673c9d5676614"
SW_OLD = "v1,x5F6Y+jsq/ajeWVXrJfXHo5NFQ6+KwJIpOxnvtn9nZg="
SW_NEW = "v1,hh2hZut9Ghi/SsMTAfCx3G8Uh+invu8FES5wGQt/43o="


def headers(**values):
    message = Message()
    for name, value in values.items():
        for one in value if isinstance(value, list) else [value]:
            message[name.replace("_", "-")] = one
    return message


def hmac_headers(authorization=HMAC_OLD, timestamp="2026-11-22T10:55:03Z"):
    return headers(Timestamp=timestamp, Authorization=authorization)


def sw_headers(signature=SW_OLD, timestamp=str(SIGNED_AT)):
    return headers(webhook_id="7d1f5a9e-2b3c-4d5e-8f90-1a2b3c4d5e6f:9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d", webhook_timestamp=timestamp, webhook_signature=signature)


class HmacScheme(unittest.TestCase):
    def test_worked_example(self):
        self.assertIsNone(verify_hmac([SECRET], "POST", PATH, BODY, hmac_headers(), now=SIGNED_AT))

    def test_empty_body(self):
        auth = "hmac bd0b1b992e568d264a0f26eb24cab24ac910835818e962907e2c72304daa5f6a"
        self.assertIsNone(verify_hmac([SECRET], "GET", "/hooks/v1/ping", b"", hmac_headers(auth), now=SIGNED_AT))

    def test_rotation_any_entry_any_secret(self):
        both = f"{HMAC_NEW}, {HMAC_OLD}"
        self.assertIsNone(verify_hmac([SECRET], "POST", PATH, BODY, hmac_headers(both), now=SIGNED_AT))
        self.assertIsNone(verify_hmac([NEW_SECRET], "POST", PATH, BODY, hmac_headers(both), now=SIGNED_AT))
        self.assertIsNone(verify_hmac([NEW_SECRET], "POST", PATH, BODY, hmac_headers([HMAC_OLD, HMAC_NEW]), now=SIGNED_AT))

    def test_rejects(self):
        cases = {
            "other secret": ([NEW_SECRET], "POST", PATH, BODY, hmac_headers()),
            "other body": ([SECRET], "POST", PATH, BODY + b" ", hmac_headers()),
            "other path": ([SECRET], "POST", "/offer/response?x=1", BODY, hmac_headers()),
            "other method": ([SECRET], "PUT", PATH, BODY, hmac_headers()),
            "upper-case hex": ([SECRET], "POST", PATH, BODY, hmac_headers(HMAC_OLD.upper().replace("HMAC", "hmac"))),
            "milliseconds": ([SECRET], "POST", PATH, BODY, hmac_headers(timestamp="2026-11-22T10:55:03.000Z")),
            "no Authorization": ([SECRET], "POST", PATH, BODY, headers(Timestamp="2026-11-22T10:55:03Z")),
            "two Timestamps": ([SECRET], "POST", PATH, BODY, headers(Timestamp=["2026-11-22T10:55:03Z"] * 2, Authorization=HMAC_OLD)),
            "oversized": ([SECRET], "POST", PATH, BODY, hmac_headers(", ".join([HMAC_OLD] * 20))),
            "impossible date": ([SECRET], "POST", PATH, BODY, hmac_headers(timestamp="2026-13-22T10:55:03Z")),
        }
        for name, (secrets, method, path, body, given) in cases.items():
            with self.subTest(name):
                self.assertIsNotNone(verify_hmac(secrets, method, path, body, given, now=SIGNED_AT))

    def test_tolerance_both_directions(self):
        for now, ok in ((SIGNED_AT + 300, True), (SIGNED_AT - 300, True), (SIGNED_AT + 301, False), (SIGNED_AT - 301, False)):
            with self.subTest(now=now - SIGNED_AT):
                self.assertEqual(verify_hmac([SECRET], "POST", PATH, BODY, hmac_headers(), now=now) is None, ok)


class StandardWebhooksScheme(unittest.TestCase):
    def test_worked_example(self):
        self.assertIsNone(verify_standard_webhook([SECRET], BODY, sw_headers(), now=SIGNED_AT))

    def test_rotation_space_separated(self):
        both = f"{SW_NEW} {SW_OLD}"
        self.assertIsNone(verify_standard_webhook([SECRET], BODY, sw_headers(both), now=SIGNED_AT))
        self.assertIsNone(verify_standard_webhook([NEW_SECRET], BODY, sw_headers(both), now=SIGNED_AT))

    def test_rejects(self):
        cases = {
            "other secret": ([NEW_SECRET], BODY, sw_headers()),
            "other body": ([SECRET], BODY + b" ", sw_headers()),
            "other id": ([SECRET], BODY, headers(webhook_id="evt_124", webhook_timestamp=str(SIGNED_AT), webhook_signature=SW_OLD)),
            "v2 entry": ([SECRET], BODY, sw_headers(SW_OLD.replace("v1,", "v2,"))),
            "not base64": ([SECRET], BODY, sw_headers("v1,***")),
            "stale": ([SECRET], BODY, sw_headers(timestamp=str(SIGNED_AT - 301))),
            "future": ([SECRET], BODY, sw_headers(timestamp=str(SIGNED_AT + 301))),
            "no id": ([SECRET], BODY, headers(webhook_timestamp=str(SIGNED_AT), webhook_signature=SW_OLD)),
        }
        for name, (secrets, body, given) in cases.items():
            with self.subTest(name):
                self.assertIsNotNone(verify_standard_webhook(secrets, body, given, now=SIGNED_AT))


class Deduplication(unittest.TestCase):
    def test_webhook_id_of_the_platforms_form(self):
        self.assertIsNone(webhook_id_problem(headers(webhook_id="7d1f5a9e-2b3c-4d5e-8f90-1a2b3c4d5e6f:9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d")))
        for given in (headers(), headers(webhook_id="test-7d1f5a9e"), headers(webhook_id="a:b:c"), headers(webhook_id=["a:b", "a:b"])):
            with self.subTest(given=given.get_all("webhook-id")):
                self.assertIsNotNone(webhook_id_problem(given))

    def test_key_is_the_bodys_event_id_else_the_webhook_id(self):
        self.assertEqual(deduplication_key("other:org", BODY), "event:7d1f5a9e-2b3c-4d5e-8f90-1a2b3c4d5e6f")
        self.assertEqual(deduplication_key("e:org", b""), "webhook:e:org")
        self.assertEqual(deduplication_key("e:org", b'{"eventId": 7}'), "webhook:e:org")
        self.assertEqual(deduplication_key("e:org", b"{not json"), "webhook:e:org")


if __name__ == "__main__":
    unittest.main()


class AnswersInOrder(unittest.TestCase):
    def answer(self, sequence=None, worker="w1"):
        body = {"offerId": "o1", "workerId": worker}
        return body if sequence is None else {**body, "sequence": sequence}

    def test_drops_a_lower_or_equal_sequence(self):
        order = AnswerOrder()
        self.assertTrue(order.apply(self.answer(2)))
        self.assertFalse(order.apply(self.answer(1)))
        self.assertFalse(order.apply(self.answer(2)))
        self.assertTrue(order.apply(self.answer(3)))

    def test_recipients_are_independent(self):
        order = AnswerOrder()
        self.assertTrue(order.apply(self.answer(5)))
        self.assertTrue(order.apply(self.answer(1, worker="w2")))

    def test_an_unnumbered_answer_applies_only_before_any_numbered_one(self):
        order = AnswerOrder()
        self.assertTrue(order.apply(self.answer()))
        self.assertTrue(order.apply(self.answer(1)))
        self.assertFalse(order.apply(self.answer()))

    def test_any_arrival_order_ends_with_the_latest_and_accepts_increasing(self):
        import itertools
        for arrivals in itertools.permutations([1, 2, 3, 4, 2, 3]):
            order = AnswerOrder()
            accepted = [sequence for sequence in arrivals if order.apply(self.answer(sequence))]
            self.assertEqual(accepted, sorted(set(accepted)))
            self.assertEqual(accepted[-1], 4)
