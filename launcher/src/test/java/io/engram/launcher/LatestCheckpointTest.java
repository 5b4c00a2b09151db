package io.engram.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which checkpoint {@code up}, {@code run} and {@code cluster submit --resume} restore. */
class LatestCheckpointTest {

    private static Path checkpoint(Path folder, String writtenAt) throws Exception {
        Files.createDirectories(folder);
        Path metadata = Files.writeString(folder.resolve("_metadata"), "state");
        Files.setLastModifiedTime(metadata, FileTime.from(Instant.parse(writtenAt)));
        return folder;
    }

    @Test
    void theNewestMetadataWinsAcrossJobsAndSavepoints(@TempDir Path home) throws Exception {
        Path checkpoints = home.resolve("checkpoints");
        Path savepoints = home.resolve("savepoints");
        checkpoint(checkpoints.resolve("job-a/chk-7"), "2026-12-01T10:00:00Z");
        Path newestCheckpoint = checkpoint(checkpoints.resolve("job-b/chk-2"), "2026-12-01T11:00:00Z");
        Files.createDirectories(checkpoints.resolve("job-b/shared"));
        Path savepoint = checkpoint(savepoints.resolve("savepoint-3f2a"), "2026-12-01T12:00:00Z");

        assertThat(LocalPipeline.latestCheckpoint(checkpoints)).contains(newestCheckpoint);
        assertThat(LocalPipeline.latestCheckpoint(checkpoints, savepoints)).contains(savepoint);
    }

    /** A checkpoint being written has no _metadata yet; one being subsumed loses it: neither can be restored. */
    @Test
    void aCheckpointWithoutMetadataIsNotChosen(@TempDir Path checkpoints) throws Exception {
        Path complete = checkpoint(checkpoints.resolve("job/chk-4"), "2026-12-01T10:00:00Z");
        Files.createDirectories(checkpoints.resolve("job/chk-5"));

        assertThat(LocalPipeline.latestCheckpoint(checkpoints)).contains(complete);
    }

    @Test
    void nothingToRestoreWhenTheFolderIsMissingOrEmpty(@TempDir Path home) throws Exception {
        Files.createDirectories(home.resolve("empty"));

        assertThat(LocalPipeline.latestCheckpoint(home.resolve("missing"), home.resolve("empty"))).isEmpty();
    }
}
