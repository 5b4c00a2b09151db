package io.engram.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.sql.SQLException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.junit.jupiter.api.Test;

class FailureReasonTest {

    @Test
    void aRefusedConnectionIsSaidSoWhereverItIsWrapped() {
        assertThat(FailureReason.of(new ConnectException())).isEqualTo("connection refused");
        assertThat(FailureReason.of(new ExecutionException(new IOException("failed", new ConnectException()))))
                .isEqualTo("connection refused");
    }

    @Test
    void timeOutsAndUnknownHostsAndAuthenticationAreNamed() {
        assertThat(FailureReason.of(new TimeoutException())).isEqualTo("timed out");
        assertThat(FailureReason.of(new HttpConnectTimeoutException("HTTP connect timed out"))).isEqualTo("timed out");
        assertThat(FailureReason.of(new org.apache.kafka.common.errors.TimeoutException("Timed out waiting for a node")))
                .isEqualTo("timed out");
        assertThat(FailureReason.of(new UnknownHostException("kafka.internal"))).isEqualTo("unknown host kafka.internal");
        assertThat(FailureReason.of(new ExecutionException(new SaslAuthenticationException("invalid credentials"))))
                .isEqualTo("authentication failed: invalid credentials");
        assertThat(FailureReason.of(new SQLException("password authentication failed for user \"engram\"", "28P01")))
                .isEqualTo("authentication failed: password authentication failed for user \"engram\"");
    }

    @Test
    void anythingElseIsItsInnermostMessageAndNeverNull() {
        assertThat(FailureReason.of(new IllegalStateException("outer", new IOException("disk full")))).isEqualTo("disk full");
        assertThat(FailureReason.of(new IllegalStateException("outer", new IOException()))).isEqualTo("outer");
        assertThat(FailureReason.of(new IllegalStateException())).isEqualTo("IllegalStateException");
    }
}
