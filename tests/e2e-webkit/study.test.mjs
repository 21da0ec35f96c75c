// WebKit: a participant runs the default study blind, reloads mid-study,
// resumes and finishes; a study on the server and a threshold study, reload
// and all; checked as in every browser (tests/e2e/lib/participant_suite.mjs).
import { launchWebKit, webkitOpen } from '../e2e/lib/webkit.mjs';
import { participantSuite } from '../e2e/lib/participant_suite.mjs';

participantSuite({ engine: 'webkit', name: 'WebKit', launch: launchWebKit, open: webkitOpen });
