import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.security.KeyFactory;
import java.security.MessageDigest;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.X509EncodedKeySpec;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Verifying the platform's webhook signatures in Java, with the JDK alone (17 or later): the
 * `hmac` scheme, Standard Webhooks `v1` (both with your shared secret) and `v1a` (ed25519, with the
 * platform's published keys). Copy the three `verify…` methods; `main` only lets the platform's
 * test suite check them against requests its own signing library signed.
 *
 * Headers are given with lower-case names, each with every value it arrived with. `rawBody` is the
 * exact bytes received (empty when there is none): verify before parsing.
 */
public final class WebhookVerifier {
  static final long TOLERANCE_SECONDS = 300;
  static final int MAX_SIGNATURE_HEADER = 1024;
  static final Pattern HMAC_TIMESTAMP = Pattern.compile("^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z$");
  static final Pattern HMAC_ENTRY = Pattern.compile("^hmac ([0-9a-f]{64})$");
  static final Pattern UNIX_SECONDS = Pattern.compile("^\\d{1,12}$");
  /** DER prefix of an X.509 SubjectPublicKeyInfo for a raw 32-byte ed25519 key (RFC 8410). */
  static final byte[] ED25519_SPKI_PREFIX = hex("302a300506032b6570032100");

  /** The `hmac` scheme: HMAC-SHA256 of `Timestamp \n METHOD \n pathWithQuery \n body`, hex, in `Authorization`. */
  public static boolean verifyHmac(List<String> secrets, String method, String pathWithQuery, byte[] rawBody, Map<String, List<String>> headers, long nowMillis) {
    List<String> timestamps = headers.getOrDefault("timestamp", List.of());
    String authorization = String.join(",", headers.getOrDefault("authorization", List.of()));
    if (timestamps.size() != 1 || authorization.isEmpty() || authorization.length() > MAX_SIGNATURE_HEADER) return false;
    String timestamp = timestamps.get(0);
    if (!HMAC_TIMESTAMP.matcher(timestamp).matches()) return false;
    long signedAt;
    try {
      signedAt = Instant.parse(timestamp).getEpochSecond();
    } catch (DateTimeParseException e) {
      return false;
    }
    if (Math.abs(nowMillis / 1000 - signedAt) > TOLERANCE_SECONDS) return false;
    List<byte[]> given = new ArrayList<>();
    for (String entry : authorization.split(",")) {
      Matcher match = HMAC_ENTRY.matcher(entry.trim());
      if (match.matches()) given.add(hex(match.group(1)));
    }
    byte[] prefix = (timestamp + "\n" + method.toUpperCase() + "\n" + pathWithQuery + "\n").getBytes(StandardCharsets.UTF_8);
    return anyMatches(secrets, concat(prefix, rawBody), given);
  }

  /** Standard Webhooks `v1`: HMAC-SHA256 of `webhook-id.webhook-timestamp.body`, base64, in `webhook-signature`. */
  public static boolean verifyStandardWebhook(List<String> secrets, byte[] rawBody, Map<String, List<String>> headers, long nowMillis) {
    String[] signed = signedPrefix(headers, nowMillis);
    if (signed == null) return false;
    List<byte[]> given = entries(headers, "v1,");
    return anyMatches(secrets, concat(signed[0].getBytes(StandardCharsets.UTF_8), rawBody), given);
  }

  /**
   * Standard Webhooks `v1a`: an ed25519 signature of the same bytes as `v1`, by the platform's key that
   * `webhook-key-id` names. `keys`: kid → the `x` of that key in the platform's
   * `/.well-known/webhook-keys.json` (base64url, 32 bytes); refresh them when a kid is unknown.
   */
  public static boolean verifyV1a(Map<String, String> keys, byte[] rawBody, Map<String, List<String>> headers, long nowMillis) {
    String[] signed = signedPrefix(headers, nowMillis);
    List<String> keyIds = headers.getOrDefault("webhook-key-id", List.of());
    if (signed == null || keyIds.size() != 1 || !keys.containsKey(keyIds.get(0))) return false;
    try {
      byte[] raw = Base64.getUrlDecoder().decode(keys.get(keyIds.get(0)));
      if (raw.length != 32) return false;
      PublicKey key = KeyFactory.getInstance("Ed25519").generatePublic(new X509EncodedKeySpec(concat(ED25519_SPKI_PREFIX, raw)));
      byte[] message = concat(signed[0].getBytes(StandardCharsets.UTF_8), rawBody);
      for (byte[] signature : entries(headers, "v1a,")) {
        Signature verifier = Signature.getInstance("Ed25519");
        verifier.initVerify(key);
        verifier.update(message);
        if (signature.length == 64 && verifier.verify(signature)) return true;
      }
      return false;
    } catch (java.security.GeneralSecurityException | IllegalArgumentException e) {
      return false;
    }
  }

  /** `webhook-id.webhook-timestamp.` when both are present once and the timestamp is within tolerance. */
  private static String[] signedPrefix(Map<String, List<String>> headers, long nowMillis) {
    List<String> ids = headers.getOrDefault("webhook-id", List.of());
    List<String> timestamps = headers.getOrDefault("webhook-timestamp", List.of());
    if (ids.size() != 1 || timestamps.size() != 1 || !UNIX_SECONDS.matcher(timestamps.get(0)).matches()) return null;
    if (Math.abs(nowMillis / 1000 - Long.parseLong(timestamps.get(0))) > TOLERANCE_SECONDS) return null;
    return new String[] {ids.get(0) + "." + timestamps.get(0) + "."};
  }

  /** The decoded signatures of one version in `webhook-signature` (space-separated entries; a repeated header is one list). */
  private static List<byte[]> entries(Map<String, List<String>> headers, String version) {
    String list = String.join(" ", headers.getOrDefault("webhook-signature", List.of()));
    List<byte[]> given = new ArrayList<>();
    if (list.length() > MAX_SIGNATURE_HEADER) return given;
    for (String entry : list.split(" ")) {
      if (!entry.startsWith(version)) continue;
      try {
        given.add(Base64.getDecoder().decode(entry.substring(version.length())));
      } catch (IllegalArgumentException e) {
        // not base64: not a match
      }
    }
    return given;
  }

  /** True if any given signature is the HMAC-SHA256 of `message` with any secret; constant-time comparisons. */
  private static boolean anyMatches(List<String> secrets, byte[] message, List<byte[]> given) {
    boolean valid = false;
    for (String secret : secrets) {
      byte[] expected = hmacSha256(secret.getBytes(StandardCharsets.UTF_8), message);
      for (byte[] signature : given) if (MessageDigest.isEqual(signature, expected)) valid = true;
    }
    return valid;
  }

  /**
   * The integrator guide's rule for answers in order: keep, per (offerId, workerId), the highest
   * `sequence` applied; a Worker Offer Response with a lower or equal one is stale or a repeat:
   * answer 2xx, do not apply it. `sequence` is null on an answer recorded before answers were numbered.
   */
  public static final class AnswerOrder {
    private final Map<String, Long> latest = new HashMap<>();

    /** True when the answer is the newest for its recipient (apply it); false to acknowledge and drop it. */
    public synchronized boolean apply(String offerId, String workerId, Long sequence) {
      String key = offerId + " " + workerId;
      Long held = latest.get(key);
      if (sequence == null) return held == null;
      if (held != null && sequence <= held) return false;
      latest.put(key, sequence);
      return true;
    }
  }

  private static byte[] hmacSha256(byte[] key, byte[] message) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      return mac.doFinal(message);
    } catch (java.security.GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] joined = new byte[a.length + b.length];
    System.arraycopy(a, 0, joined, 0, a.length);
    System.arraycopy(b, 0, joined, a.length, b.length);
    return joined;
  }

  private static byte[] hex(String text) {
    byte[] bytes = new byte[text.length() / 2];
    for (int i = 0; i < bytes.length; i++) bytes[i] = (byte) Integer.parseInt(text.substring(2 * i, 2 * i + 2), 16);
    return bytes;
  }

  /**
   * Reads requests from standard input, one block each (`name`, `now <ms>`, `secret <s>`, `key <kid> <x>`,
   * `method`, `target`, `header <name>: <value>`, `body <base64>`, then `end`) and prints
   * `<name> hmac=<ok|fail> v1=<ok|fail> v1a=<ok|fail>` for each. A line `answer <offerId> <workerId>
   * <sequence|->` goes through one AnswerOrder and prints `answer <n> applied|dropped` (n counts from 1).
   */
  public static void main(String[] args) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String name = "", method = "", target = "";
    long now = 0;
    byte[] body = new byte[0];
    List<String> secrets = new ArrayList<>();
    Map<String, String> keys = new HashMap<>();
    Map<String, List<String>> headers = new LinkedHashMap<>();
    AnswerOrder answers = new AnswerOrder();
    int answerNo = 0;
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      int space = line.indexOf(' ');
      String word = space < 0 ? line : line.substring(0, space);
      String rest = space < 0 ? "" : line.substring(space + 1);
      switch (word) {
        case "name" -> name = rest;
        case "now" -> now = Long.parseLong(rest);
        case "secret" -> secrets.add(rest);
        case "key" -> keys.put(rest.substring(0, rest.indexOf(' ')), rest.substring(rest.indexOf(' ') + 1));
        case "method" -> method = rest;
        case "target" -> target = rest;
        case "header" -> headers.computeIfAbsent(rest.substring(0, rest.indexOf(':')).toLowerCase(), k -> new ArrayList<>()).add(rest.substring(rest.indexOf(':') + 2));
        case "body" -> body = Base64.getDecoder().decode(rest);
        case "answer" -> {
          String[] fields = rest.split(" ");
          Long sequence = fields[2].equals("-") ? null : Long.valueOf(fields[2]);
          System.out.println("answer " + (++answerNo) + " " + (answers.apply(fields[0], fields[1], sequence) ? "applied" : "dropped"));
        }
        case "end" -> {
          System.out.println(name
              + " hmac=" + (verifyHmac(secrets, method, target, body, headers, now) ? "ok" : "fail")
              + " v1=" + (verifyStandardWebhook(secrets, body, headers, now) ? "ok" : "fail")
              + " v1a=" + (verifyV1a(keys, body, headers, now) ? "ok" : "fail"));
          secrets = new ArrayList<>();
          keys = new HashMap<>();
          headers = new LinkedHashMap<>();
          body = new byte[0];
        }
        default -> throw new IllegalArgumentException("unknown line: " + word);
      }
    }
  }
}
