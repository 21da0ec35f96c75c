// Firefox: a participant runs the default study blind, reloads mid-study,
// resumes and finishes; a study on the server and a threshold study, reload
// and all; checked as in every browser (tests/e2e/lib/participant_suite.mjs).
import { firefoxOpen, launchFirefox } from '../e2e/lib/firefox.mjs';
import { participantSuite } from '../e2e/lib/participant_suite.mjs';

participantSuite({ engine: 'gecko', name: 'Firefox', launch: launchFirefox, open: firefoxOpen });
