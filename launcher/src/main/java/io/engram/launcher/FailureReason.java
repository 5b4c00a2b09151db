package io.engram.launcher;

import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.net.http.HttpTimeoutException;
import java.sql.SQLException;

/**
 * Why a server did not answer, in the words an operator acts on: "connection refused" (nothing listens there),
 * "timed out" (something is in the way, or the server is stuck), "unknown host", "authentication failed: …";
 * otherwise the innermost message the failure carries, never "null".
 */
final class FailureReason {

    private FailureReason() {
    }

    static String of(Throwable failure) {
        String innermost = null;
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            String known = known(t);
            if (known != null) {
                return known;
            }
            if (t.getMessage() != null && !t.getMessage().isBlank()) {
                innermost = t.getMessage();
            }
        }
        return innermost != null ? innermost : failure.getClass().getSimpleName();
    }

    private static String known(Throwable t) {
        if (t instanceof ConnectException && !(t instanceof java.net.http.HttpConnectTimeoutException)) {
            return "connection refused";
        }
        if (t instanceof NoRouteToHostException) {
            return "no route to host";
        }
        if (t instanceof UnknownHostException) {
            return "unknown host " + t.getMessage();
        }
        if (t instanceof SocketTimeoutException || t instanceof HttpTimeoutException
                || t instanceof java.util.concurrent.TimeoutException
                || t instanceof org.apache.kafka.common.errors.TimeoutException) {
            return "timed out";
        }
        if (t instanceof org.apache.kafka.common.errors.AuthenticationException
                || t instanceof org.apache.kafka.common.errors.AuthorizationException
                || t instanceof SQLException sql && sql.getSQLState() != null && sql.getSQLState().startsWith("28")) {
            return "authentication failed: " + t.getMessage();
        }
        return null;
    }
}
