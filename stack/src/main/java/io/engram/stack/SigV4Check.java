package io.engram.stack;

import com.sun.net.httpserver.HttpExchange;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Checks an AWS Signature Version 4 the way Amazon OpenSearch Service does, computed here from the published
 * algorithm rather than with the SDK that signed it: the canonical request (method, the path encoded once more,
 * the sorted query, the signed headers, the payload's SHA-256), the string to sign and the HMAC chain of the
 * secret key over date, region, service and {@code aws4_request}.
 */
final class SigV4Check {

    private static final HexFormat HEX = HexFormat.of();

    private final String accessKey;
    private final String secretKey;
    private final String region;
    private final String service;

    SigV4Check(String accessKey, String secretKey, String region, String service) {
        this.accessKey = accessKey;
        this.secretKey = secretKey;
        this.region = region;
        this.service = service;
    }

    boolean admits(HttpExchange exchange, byte[] body) {
        String authorization = exchange.getRequestHeaders().getFirst("Authorization");
        String amzDate = exchange.getRequestHeaders().getFirst("X-Amz-Date");
        if (authorization == null || amzDate == null || !authorization.startsWith("AWS4-HMAC-SHA256 ")) {
            return false;
        }
        Map<String, String> parts = new HashMap<>();
        for (String part : authorization.substring("AWS4-HMAC-SHA256 ".length()).split(",\\s*")) {
            int eq = part.indexOf('=');
            parts.put(part.substring(0, eq).strip(), part.substring(eq + 1).strip());
        }
        String[] credential = parts.getOrDefault("Credential", "").split("/");
        if (credential.length != 5 || !credential[0].equals(accessKey) || !credential[2].equals(region)
                || !credential[3].equals(service) || !credential[4].equals("aws4_request")) {
            return false;
        }
        String payloadHash = HEX.formatHex(sha256(body));
        String claimed = exchange.getRequestHeaders().getFirst("X-Amz-Content-Sha256");
        if (claimed != null && !claimed.equals(payloadHash)) {
            return false;
        }
        StringBuilder headers = new StringBuilder();
        String signedHeaders = parts.getOrDefault("SignedHeaders", "");
        for (String name : signedHeaders.split(";")) {
            String value = exchange.getRequestHeaders().getFirst(name);
            headers.append(name).append(':').append(value == null ? "" : value.strip().replaceAll("\\s+", " ")).append('\n');
        }
        String canonicalRequest = exchange.getRequestMethod() + "\n" + encode(exchange.getRequestURI().getRawPath(), true)
                + "\n" + canonicalQuery(exchange.getRequestURI().getRawQuery()) + "\n" + headers + "\n" + signedHeaders
                + "\n" + payloadHash;
        String scope = credential[1] + "/" + region + "/" + service + "/aws4_request";
        String toSign = "AWS4-HMAC-SHA256\n" + amzDate + "\n" + scope + "\n"
                + HEX.formatHex(sha256(canonicalRequest.getBytes(StandardCharsets.UTF_8)));
        byte[] key = hmac(("AWS4" + secretKey).getBytes(StandardCharsets.UTF_8), credential[1]);
        for (String step : List.of(region, service, "aws4_request")) {
            key = hmac(key, step);
        }
        return HEX.formatHex(hmac(key, toSign)).equals(parts.get("Signature"));
    }

    private static String canonicalQuery(String rawQuery) {
        if (rawQuery == null || rawQuery.isEmpty()) {
            return "";
        }
        List<String[]> pairs = new ArrayList<>();
        for (String pair : rawQuery.split("&")) {
            int eq = pair.indexOf('=');
            String name = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            pairs.add(new String[] {encode(name, false), encode(value, false)});
        }
        pairs.sort((a, b) -> a[0].equals(b[0]) ? a[1].compareTo(b[1]) : a[0].compareTo(b[0]));
        List<String> joined = new ArrayList<>();
        pairs.forEach(p -> joined.add(p[0] + "=" + p[1]));
        return String.join("&", joined);
    }

    /** RFC 3986 encoding of everything but the unreserved characters (and {@code /} in a path). */
    private static String encode(String s, boolean path) {
        StringBuilder out = new StringBuilder();
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_'
                    || c == '.' || c == '~' || (path && c == '/')) {
                out.append(c);
            } else {
                out.append('%').append(String.format("%02X", b & 0xff));
            }
        }
        return out.toString();
    }

    private static byte[] sha256(byte[] data) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] hmac(byte[] key, String data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
