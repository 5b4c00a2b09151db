package io.engram.jobs.pipeline;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

/**
 * Every log line of this JVM from INFO up (the level at which clients print their configuration), kept while
 * the capture runs, its exception included: what a scan for leaked secrets reads.
 */
final class LogCapture extends AbstractAppender implements AutoCloseable {

    private final ConcurrentLinkedQueue<String> lines = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<Map<String, String>> contexts = new ConcurrentLinkedQueue<>();
    private final Level previous;

    private LogCapture(Level previous) {
        super("log-capture", null, null, true, Property.EMPTY_ARRAY);
        this.previous = previous;
    }

    static LogCapture begin() {
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        LoggerConfig root = context.getConfiguration().getRootLogger();
        LogCapture capture = new LogCapture(root.getLevel());
        capture.start();
        root.addAppender(capture, Level.INFO, null);
        root.setLevel(Level.INFO);
        context.updateLoggers();
        return capture;
    }

    @Override
    public void append(LogEvent event) {
        StringBuilder line = new StringBuilder(event.getLoggerName()).append(" ")
                .append(event.getMessage().getFormattedMessage());
        for (Throwable t = event.getThrown(); t != null; t = t.getCause()) {
            line.append(" | ").append(t);
        }
        lines.add(line.toString());
        Map<String, String> context = new HashMap<>(event.getContextData().toMap());
        if (!context.isEmpty()) {
            context.put("logger", event.getLoggerName());
            contexts.add(context);
        }
    }

    /** The context (MDC) of each line that had one, with its logger's name under {@code logger}. */
    List<Map<String, String>> contexts() {
        return new ArrayList<>(contexts);
    }

    List<String> lines() {
        return new ArrayList<>(lines);
    }

    @Override
    public void close() {
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        Configuration configuration = context.getConfiguration();
        configuration.getRootLogger().removeAppender(getName());
        configuration.getRootLogger().setLevel(previous);
        context.updateLoggers();
        stop();
    }
}
