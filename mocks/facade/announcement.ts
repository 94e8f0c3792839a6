/**
 * Whether `topup mock serve` serves the CLI's own state, read on every command that would use the embedded sandbox:
 * a module of its own, so that reading it loads no sandbox (the served sandbox is then reached over HTTP).
 */
export { readAnnouncement, type Announcement, type AnnouncementReading } from '../state/announcement.js';
/** The token the CLI sends to the served sandbox, as to the embedded one. */
export { DEMO_TOKEN } from '../store/demo-token.js';
