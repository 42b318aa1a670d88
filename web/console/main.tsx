import { render } from 'preact';
import { App } from './App.js';
import '../shared/styles.css';

render(<App />, document.getElementById('app')!);
